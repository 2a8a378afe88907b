import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallTimer } from './call-timer.js';

describe('CallTimer', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires after the idle limit without progress; progress restarts it up to the total limit', () => {
    let fired = 0;
    const timer = new CallTimer(100, 250, () => (fired += 1));
    timer.start(false);
    vi.advanceTimersByTime(90);
    timer.progress();
    vi.advanceTimersByTime(90);
    timer.progress();
    vi.advanceTimersByTime(60);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(10); // 250 ms active in all: the total limit, whatever the progress
    expect(fired).toBe(1);
  });

  it('stands still while paused, and counts only active time afterwards', () => {
    let fired = 0;
    const timer = new CallTimer(100, undefined, () => (fired += 1));
    timer.start(true);
    vi.advanceTimersByTime(1000);
    timer.resume();
    vi.advanceTimersByTime(60);
    timer.pause();
    vi.advanceTimersByTime(5000);
    expect(fired).toBe(0);
    timer.resume();
    vi.advanceTimersByTime(39);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(1);
  });

  it('never fires once stopped', () => {
    let fired = 0;
    const timer = new CallTimer(100, 200, () => (fired += 1));
    timer.start(false);
    timer.stop();
    timer.resume();
    vi.advanceTimersByTime(1000);
    expect(fired).toBe(0);
  });
});
