import { describe, expect, it } from 'vitest';
import { CallAbort } from './call-abort.js';

describe('CallAbort', () => {
  it('calls each listener once, skips removed ones and ignores a second abort', () => {
    const abort = new CallAbort();
    const heard: string[] = [];
    const removed = () => heard.push('removed');
    abort.addEventListener('abort', () => heard.push(`first:${String(abort.reason)}`));
    abort.addEventListener('abort', removed);
    abort.addEventListener('abort', () => heard.push('second'));
    abort.removeEventListener('abort', removed);
    abort.abort('timeout');
    abort.abort('again');
    abort.addEventListener('abort', () => heard.push('late'));
    expect(heard).toEqual(['first:timeout', 'second']);
    expect([abort.aborted, abort.reason]).toEqual([true, 'timeout']);
  });

  it('makes a real AbortSignal on demand that follows the call, aborted already when asked late', () => {
    const early = new CallAbort();
    const signal = early.signal;
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal.aborted).toBe(false);
    early.abort('stop');
    expect([signal.aborted, signal.reason]).toEqual([true, 'stop']);

    const late = new CallAbort();
    late.abort('gone');
    expect([late.signal.aborted, late.signal.reason]).toEqual([true, 'gone']);
    expect(late.signal).toBe(late.signal);
  });
});
