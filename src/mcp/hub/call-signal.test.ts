import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallAbort } from '../../tools/call-abort.js';
import { CallSignal } from './call-signal.js';
import { CallClock } from './call-timer.js';

const timeoutReason = (tool: string) => new Error(`${tool} timed out`);

function setup(caller = new CallAbort()) {
  const signal = new CallSignal(new CallClock(), { idleMs: 100, maxMs: undefined }, caller, 'echo', timeoutReason);
  signal.start();
  const heard: unknown[] = [];
  const listener = () => heard.push(signal.reason);
  return { caller, signal, heard, listener };
}

describe('CallSignal', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("follows the caller's abort, once, with the caller's reason", () => {
    const { caller, signal, heard, listener } = setup();
    signal.addEventListener('abort', listener);
    expect(signal.aborted).toBe(false);
    caller.abort('stop');
    vi.advanceTimersByTime(1000);
    expect([signal.aborted, signal.reason, heard]).toEqual([true, 'stop', ['stop']]);
  });

  it("calls its listeners in the order they were added, on a timeout as on the caller's abort", () => {
    for (const end of ['timeout', 'abort'] as const) {
      const { caller, signal } = setup();
      const order: string[] = [];
      const listeners = Object.fromEntries(['a', 'b', 'c'].map((name) => [name, () => order.push(name)])) as Record<string, () => void>;
      signal.addEventListener('abort', listeners.a!);
      signal.addEventListener('abort', listeners.b!);
      signal.removeEventListener('abort', listeners.a!);
      signal.addEventListener('abort', listeners.c!);
      if (end === 'timeout') vi.advanceTimersByTime(100);
      else caller.abort('stop');
      expect([end, order]).toEqual([end, ['b', 'c']]);
    }
  });

  it('aborts when its time is up, with the timeout reason, and no longer hears the caller', () => {
    const { caller, signal, heard, listener } = setup();
    signal.addEventListener('abort', listener);
    vi.advanceTimersByTime(99);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    caller.abort('stop');
    expect(signal.aborted).toBe(true);
    expect(heard).toEqual([new Error('echo timed out')]);
    expect(signal.reason).toEqual(new Error('echo timed out'));
  });

  it('calls no listener that was removed, or added after the abort', () => {
    const { caller, signal, heard, listener } = setup();
    const second = () => heard.push('second');
    signal.addEventListener('abort', listener);
    signal.addEventListener('abort', second);
    signal.removeEventListener('abort', listener);
    vi.advanceTimersByTime(100);
    signal.addEventListener('abort', listener);
    caller.abort('stop');
    expect(heard).toEqual(['second']);

    const other = setup();
    other.signal.addEventListener('abort', other.listener);
    other.signal.removeEventListener('abort', other.listener);
    other.caller.abort('stop');
    expect(other.heard).toEqual([]);
  });

  it('is aborted from the start when the caller already was, and never times out once stopped', () => {
    const caller = new CallAbort();
    caller.abort('early');
    const { signal } = setup(caller);
    expect([signal.aborted, signal.reason]).toEqual([true, 'early']);

    const { signal: done, heard, listener } = setup();
    done.addEventListener('abort', listener);
    done.stop();
    vi.advanceTimersByTime(1000);
    expect([done.aborted, heard]).toEqual([false, []]);
  });
});
