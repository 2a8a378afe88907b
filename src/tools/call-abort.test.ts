import { describe, expect, it } from 'vitest';
import { CallAbort, CallContext } from './call-abort.js';
import { silentLogger } from '../core/logger.js';
import { createFileReadTracker } from './tool.js';

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

  it('keeps the order listeners were added in when the first one is removed', () => {
    const abort = new CallAbort();
    const heard: string[] = [];
    const first = () => heard.push('first');
    abort.addEventListener('abort', first);
    abort.addEventListener('abort', () => heard.push('second'));
    abort.removeEventListener('abort', first);
    abort.addEventListener('abort', () => heard.push('third'));
    abort.abort('stop');
    expect(heard).toEqual(['second', 'third']);
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

  it('gives a context whose signal is made on first read and follows the abort', () => {
    const abort = new CallAbort();
    const context = new CallContext({
      workspaceRoot: '/ws',
      cancellation: abort,
      readFiles: createFileReadTracker(),
      logger: silentLogger,
    });
    abort.abort('stop');
    expect([context.signal.aborted, context.signal.reason, context.cancellation]).toEqual([true, 'stop', abort]);
  });
});
