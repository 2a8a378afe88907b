import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallClock, CallTimer } from './call-timer.js';

/** Records when it timed out (fake performance.now()), then runs `then`. */
class Probe extends CallTimer {
  readonly fired: number[] = [];
  then: (() => void) | undefined;

  protected onTimeout(): void {
    this.fired.push(performance.now());
    this.then?.();
  }
}

function started(clock: CallClock, idleMs: number, maxMs?: number): Probe {
  const probe = new Probe(clock, idleMs, maxMs);
  probe.start();
  return probe;
}

describe('CallClock', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires after the idle limit without progress; progress restarts it up to the total limit', () => {
    const clock = new CallClock();
    const call = started(clock, 100, 250);
    vi.advanceTimersByTime(90);
    call.progress();
    vi.advanceTimersByTime(90);
    call.progress();
    vi.advanceTimersByTime(60);
    expect(call.fired).toEqual([]);
    vi.advanceTimersByTime(10); // 250 ms active in all: the total limit, whatever the progress
    expect(call.fired).toEqual([250]);
  });

  it('stands still while paused, and counts only active time afterwards', () => {
    const clock = new CallClock();
    clock.pause();
    const call = started(clock, 100);
    vi.advanceTimersByTime(1000);
    clock.resume();
    vi.advanceTimersByTime(60);
    clock.pause();
    vi.advanceTimersByTime(5000);
    expect(call.fired).toEqual([]);
    clock.resume();
    vi.advanceTimersByTime(39);
    expect(call.fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(call.fired).toEqual([6100]);
  });

  it('never fires once stopped, and fires nothing twice', () => {
    const clock = new CallClock();
    const stopped = started(clock, 100, 200);
    stopped.stop();
    const due = started(clock, 100, 200);
    vi.advanceTimersByTime(1000);
    due.progress();
    clock.pause();
    clock.resume();
    vi.advanceTimersByTime(1000);
    expect(stopped.fired).toEqual([]);
    expect(due.fired).toEqual([100]);
  });

  it('serves every call with one timer, and ends each call at its own deadline', () => {
    const clock = new CallClock();
    const calls: Probe[] = [];
    for (let index = 0; index < 32; index += 1) {
      calls.push(started(clock, 100));
      vi.advanceTimersByTime(1);
    }
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(200);
    expect(calls.map((call) => call.fired)).toEqual(calls.map((_, index) => [index + 100]));
    expect(vi.getTimerCount()).toBe(0);
  });

  it('fires a shorter deadline that starts after a longer one on time', () => {
    const clock = new CallClock();
    const slow = started(clock, 1000);
    vi.advanceTimersByTime(10);
    const fast = started(clock, 100);
    vi.advanceTimersByTime(2000);
    expect([fast.fired, slow.fired]).toEqual([[110], [1000]]);
  });

  it('keeps timing the others when a timed-out call stops or starts calls', () => {
    const clock = new CallClock();
    let startedByFirst: Probe | undefined;
    const first = started(clock, 100);
    const stoppedByFirst = started(clock, 100);
    const later = started(clock, 300);
    first.then = () => {
      stoppedByFirst.stop();
      startedByFirst = started(clock, 50);
    };
    vi.advanceTimersByTime(1000);
    expect([first.fired, stoppedByFirst.fired, startedByFirst?.fired, later.fired]).toEqual([[100], [], [150], [300]]);
  });
});

describe('CallClock with real timers', () => {
  it('keeps the process alive while calls run, and not once the last one ended', () => {
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const clock = new CallClock();
    try {
      const first = started(clock, 60_000);
      const handle = setTimeoutSpy.mock.results[0]?.value as NodeJS.Timeout;
      expect(handle.hasRef()).toBe(true);
      first.stop();
      expect(handle.hasRef()).toBe(false);
      const second = started(clock, 60_000);
      expect(setTimeoutSpy).toHaveBeenCalledTimes(1);
      expect(handle.hasRef()).toBe(true);
      second.stop();
      expect(handle.hasRef()).toBe(false);
    } finally {
      clock.dispose();
      setTimeoutSpy.mockRestore();
    }
  });
});
