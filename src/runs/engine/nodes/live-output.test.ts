import { describe, expect, it } from 'vitest';
import type { NewRunEvent } from '../../model/run-event.js';
import { liveOutput } from './live-output.js';

function collector() {
  const events: NewRunEvent[] = [];
  return { events, emit: async (batch: NewRunEvent[]) => void events.push(...batch) };
}

describe('liveOutput', () => {
  it('batches pieces per stream into stage-output events, split characters joined', async () => {
    const { events, emit } = collector();
    const live = liveOutput(emit);
    const euro = Buffer.from('€');
    live.push('stdout', Buffer.from('step one\n'));
    live.push('stdout', euro.subarray(0, 1));
    live.push('stderr', Buffer.from('warning\n'));
    live.push('stdout', euro.subarray(1));
    await live.close();
    expect(events).toEqual([
      { type: 'stage-output', payload: { stream: 'stdout', text: 'step one\n€' } },
      { type: 'stage-output', payload: { stream: 'stderr', text: 'warning\n' } },
    ]);
    live.push('stdout', Buffer.from('after the end'));
    await live.close();
    expect(events).toHaveLength(2);
  });

  it('stops at its cap with a note, so a chatty command cannot flood the log', async () => {
    const { events, emit } = collector();
    const live = liveOutput(emit);
    const line = `${'x'.repeat(1023)}\n`;
    for (let index = 0; index < 300; index += 1) live.push('stdout', Buffer.from(line));
    await live.close();
    const text = events.map((event) => String(event.payload?.text)).join('');
    expect(text.length).toBeLessThan(256 * 1024 + 100);
    expect(text.endsWith("[live output stops here; the stage's output has the rest]\n")).toBe(true);
  });

  it('loses only live output when a write fails', async () => {
    const live = liveOutput(async () => {
      throw new Error('store gone');
    });
    live.push('stdout', Buffer.from('x'));
    await expect(live.close()).resolves.toBeUndefined();
  });
});
