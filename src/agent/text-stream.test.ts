// Coalescing the model's streamed text into log events: what arrives between two writes is one event, a turn streams at most MAX_STREAMED_TEXT.
import { describe, expect, it } from 'vitest';
import type { NewRunEvent } from '../runs/model/run-event.js';
import { MAX_STREAMED_TEXT, textStream } from './text-stream.js';

function recorder(): { events: NewRunEvent[]; emit: (events: NewRunEvent[]) => Promise<void> } {
  const events: NewRunEvent[] = [];
  return { events, emit: async (batch) => void events.push(...batch) };
}

describe('textStream', () => {
  it('writes the deltas that arrived since the last write as one event, and nothing when none did', async () => {
    const log = recorder();
    const stream = textStream(3, log.emit);
    stream.push('The notes ');
    stream.push('say ');
    stream.push('');
    stream.push('alpha.');
    await stream.flush();
    await stream.flush();
    expect(log.events).toEqual([{ type: 'model-text-streamed', payload: { turn: 3, text: 'The notes say alpha.' } }]);
  });

  it('streams at most MAX_STREAMED_TEXT characters of a turn', async () => {
    const log = recorder();
    const stream = textStream(1, log.emit);
    stream.push('x'.repeat(MAX_STREAMED_TEXT - 2));
    stream.push('abcdef');
    stream.push('more');
    await stream.flush();
    expect(log.events.map((event) => String(event.payload.text).length)).toEqual([MAX_STREAMED_TEXT]);
    expect(String(log.events[0]!.payload.text).endsWith('ab')).toBe(true);
  });

  it('rejects flush with the failure of a write, so the stage sees a store that refused it', async () => {
    const stream = textStream(1, () => Promise.reject(new Error('lease lost')));
    stream.push('text');
    await expect(stream.flush()).rejects.toThrow('lease lost');
  });
});
