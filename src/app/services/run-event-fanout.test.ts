import { describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logger.js';
import type { RunEvent } from '../../runs/model/run-event.js';
import { MemoryRunStore } from '../../runs/store/memory/memory-run-store.js';
import type { ListEventsOptions } from '../../runs/store/run-store.js';
import { RunEventFanout, type EventFollower } from './run-event-fanout.js';

const silent = createLogger(() => undefined);

/** Reads from `follower` until it has seen `lastSeq`. */
async function collect(follower: EventFollower, lastSeq: number): Promise<number[]> {
  const seqs: number[] = [];
  const signal = new AbortController().signal;
  while (seqs.at(-1) !== lastSeq) seqs.push(...(await follower.next(60_000, signal)).map((event: RunEvent) => event.seq));
  return seqs;
}

describe('RunEventFanout', () => {
  it('gives every follower each event after its own cursor, in order, once — with one read per change for followers at the head', async () => {
    const store = new MemoryRunStore();
    let reads = 0;
    const counted = {
      listEvents: (runId: string, options?: ListEventsOptions) => {
        reads += 1;
        return store.listEvents(runId, options);
      },
      watchChanges: store.watchChanges.bind(store),
    };
    const run = await store.createRun({ workflow: 'w', workflowPath: '/w.toml', cwd: '/' });
    const fanout = new RunEventFanout(counted, silent);
    const followers = Array.from({ length: 10 }, () => fanout.follow(run.id, 0));
    const behind = fanout.follow(run.id, 0, ['tick-sent']);
    const all = followers.map((follower) => collect(follower, 21));
    const ticks = collect(behind, 20);
    for (let index = 0; index < 20; index += 1)
      await store.appendEvents(run.id, [{ type: index % 2 === 0 ? 'tick-sent' : 'tock-sent', payload: { index } }]);
    const expected = Array.from({ length: 21 }, (_, index) => index + 1);
    for (const seqs of await Promise.all(all)) expect(seqs).toEqual(expected);
    expect(await ticks).toEqual(expected.filter((seq) => seq % 2 === 0));
    // Eleven followers, twenty appends: far fewer reads than one per follower per append.
    expect(reads).toBeLessThanOrEqual(21 + 2);

    const late = fanout.follow(run.id, 18);
    expect(await collect(late, 21)).toEqual([19, 20, 21]);
    for (const follower of [...followers, behind, late]) follower.close();
  });
});
