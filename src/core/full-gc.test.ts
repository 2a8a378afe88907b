import { afterEach, describe, expect, it } from 'vitest';
import { fullGc, setFullGc } from './full-gc.js';

afterEach(() => setFullGc(undefined));

describe('fullGc', () => {
  it('does nothing in a process that neither opted in nor was started with --expose-gc', () => {
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    expect(fullGc()).toBe(false);
  });

  it('calls what the entry point set, each time, until it is unset', () => {
    let calls = 0;
    setFullGc(() => (calls += 1));
    expect([fullGc(), fullGc()]).toEqual([true, true]);
    expect(calls).toBe(2);
    setFullGc(undefined);
    expect(fullGc()).toBe(false);
    expect(calls).toBe(2);
  });
});
