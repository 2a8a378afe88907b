/** Unit tests of the reconnect backoff delays. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, backoffDelay } from './backoff.js';

describe('backoffDelay', () => {
  const noJitter = () => 0.5;

  it('starts at 1 s and grows by 1.5 up to 30 s', () => {
    const delays = [1, 2, 3, 4, 10, 20].map((attempt) => backoffDelay(attempt, DEFAULT_BACKOFF, noJitter));
    expect(delays).toEqual([1000, 1500, 2250, 3375, 30_000, 30_000]);
  });

  it('jitters within ±20 % and never exceeds the maximum', () => {
    expect(backoffDelay(1, DEFAULT_BACKOFF, () => 0)).toBe(800);
    expect(backoffDelay(1, DEFAULT_BACKOFF, () => 1)).toBe(1200);
    expect(backoffDelay(30, DEFAULT_BACKOFF, () => 1)).toBe(30_000);
    for (let attempt = 1; attempt < 20; attempt += 1) {
      const delay = backoffDelay(attempt);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(30_000);
    }
  });

  it('takes other parameters (tests use short delays)', () => {
    expect(backoffDelay(3, { initialMs: 10, factor: 2, maxMs: 1000, jitter: 0 })).toBe(40);
  });
});
