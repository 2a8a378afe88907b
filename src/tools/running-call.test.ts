import { describe, expect, it } from 'vitest';
import { RunningCall } from './running-call.js';
import { textResult } from './tool.js';

describe('RunningCall', () => {
  it('cancels every call still running when the session aborts, and leaves ended ones alone', async () => {
    const session = new AbortController();
    const ended = new RunningCall(session.signal, 'slow', Number.POSITIVE_INFINITY);
    const first = new RunningCall(session.signal, 'slow', Number.POSITIVE_INFINITY);
    const second = new RunningCall(session.signal, 'slow', Number.POSITIVE_INFINITY);
    ended.settle(textResult('done'));
    session.abort();
    expect(ended.abort.aborted).toBe(false);
    expect(first.abort.aborted && second.abort.aborted).toBe(true);
    expect(await ended.result).toEqual(textResult('done'));
    expect((await first.result).isError).toBe(true);
    // A result arriving after the cancellation is dropped.
    second.settle(textResult('late'));
    expect(await second.result).toEqual({ content: [{ type: 'text', text: 'Cancelled' }], isError: true });
  });

  it('ends a call at its timeout, naming the tool and the time, with a TOOL_TIMEOUT abort', async () => {
    const call = new RunningCall(new AbortController().signal, 'slow', 5);
    const result = await call.result;
    expect(result.content).toEqual([{ type: 'text', text: "Tool 'slow' timed out after 5ms." }]);
    expect(call.abort.reason).toMatchObject({ code: 'TOOL_TIMEOUT' });
  });
});
