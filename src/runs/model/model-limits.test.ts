import { describe, expect, it } from 'vitest';
import { pollDelay, poolRefusal, type ModelPoolUsage } from './model-limits.js';

const idle: ModelPoolUsage = { inFlight: 0, requests: 0, oldestRequestAt: null, tokens: 0, oldestTokensAt: null };

describe('model limit arithmetic', () => {
  it('lets a call start while every limit of the pool has room', () => {
    const pool = { pattern: 'anthropic:*', concurrent: 2, requestsPerMinute: 3, tokensPerMinute: 100 };
    expect(poolRefusal(pool, { ...idle, inFlight: 1, requests: 2, oldestRequestAt: 0, tokens: 99, oldestTokensAt: 0 }, 1_000, 60_000)).toBe(
      undefined,
    );
  });

  it('refuses on the first full limit: concurrent, then requests, then tokens', () => {
    const pool = { pattern: 'p:*', concurrent: 1, requestsPerMinute: 1, tokensPerMinute: 10 };
    const full = { inFlight: 1, requests: 1, oldestRequestAt: 5_000, tokens: 10, oldestTokensAt: 7_000 };
    expect(poolRefusal(pool, full, 10_000, 60_000)).toEqual({ pattern: 'p:*', limit: 'concurrent', retryAfterMs: null });
    expect(poolRefusal(pool, { ...full, inFlight: 0 }, 10_000, 60_000)).toEqual({
      pattern: 'p:*',
      limit: 'requests_per_minute',
      retryAfterMs: 55_000,
    });
    expect(poolRefusal(pool, { ...full, inFlight: 0, requests: 0 }, 10_000, 60_000)).toEqual({
      pattern: 'p:*',
      limit: 'tokens_per_minute',
      retryAfterMs: 57_000,
    });
  });

  it('ignores limits a pool does not set, and never says to wait less than 1 ms', () => {
    expect(poolRefusal({ pattern: 'p:*', concurrent: 1 }, { ...idle, requests: 500, tokens: 1e9 }, 0, 60_000)).toBe(undefined);
    expect(poolRefusal({ pattern: 'p:*', requestsPerMinute: 1 }, { ...idle, requests: 1, oldestRequestAt: 0 }, 60_000, 60_000)).toEqual({
      pattern: 'p:*',
      limit: 'requests_per_minute',
      retryAfterMs: 1,
    });
  });

  it('polls after the window’s own time, capped, else with a doubling backoff, jittered up to a quarter', () => {
    expect(pollDelay({ retryAfterMs: 40_000 }, 0, 250, () => 0)).toBe(250);
    expect(pollDelay({ retryAfterMs: 100 }, 7, 250, () => 0)).toBe(100);
    expect([0, 1, 2, 3, 4].map((attempt) => pollDelay({ retryAfterMs: null }, attempt, 250, () => 0))).toEqual([20, 40, 80, 160, 250]);
    expect(pollDelay({ retryAfterMs: null }, 0, 250, () => 1)).toBe(25);
  });
});
