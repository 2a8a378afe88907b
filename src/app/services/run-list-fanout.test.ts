import { describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logger.js';
import type { RunRecord } from '../../runs/model/run-record.js';
import { MemoryRunStore } from '../../runs/store/memory/memory-run-store.js';
import type { UpdatedCursor } from '../../runs/store/run-store.js';
import { RunListFanout, type ListFollower } from './run-list-fanout.js';

const silent = createLogger(() => undefined);
const params = { workflow: 'w', workflowPath: '/w.toml', cwd: '/' };
const signal = new AbortController().signal;

/** Reads from `follower` until `done` says it has seen enough. */
async function collect<T>(follower: ListFollower<T>, done: (seen: T[]) => boolean): Promise<T[]> {
  const seen: T[] = [];
  while (!done(seen)) seen.push(...(await follower.next(60_000, signal)));
  return seen;
}

describe('RunListFanout', () => {
  it('hands every follower the runs that change, in order, through its own pick — with one read per change for all of them', async () => {
    let now = 1_000_000;
    const store = new MemoryRunStore({ clock: () => now });
    let reads = 0;
    const counted = {
      listRunsUpdatedAfter: (after: UpdatedCursor, limit?: number) => {
        reads += 1;
        return store.listRunsUpdatedAfter(after, limit);
      },
      watchChanges: store.watchChanges.bind(store),
    };
    const fanout = new RunListFanout(counted, silent, { clock: () => now, overlapMs: 100 });
    const everything = Array.from({ length: 10 }, () => fanout.follow((run: RunRecord) => `${run.id}:${run.status}`));
    const failedOnly = fanout.follow((run: RunRecord) => (run.status === 'failed' ? run.id : undefined));

    now += 1000;
    const run = await store.createRun({ ...params, initialStatus: 'queued' });
    const steps = ['starting', 'running', 'failed'] as const;
    for (const to of steps) {
      now += 10;
      await store.appendEvents(run.id, [{ type: 'run-status-changed', payload: { to } }]);
    }
    const expected = ['queued', 'starting', 'running', 'failed'].map((status) => `${run.id}:${status}`);
    for (const seen of await Promise.all(everything.map((follower) => collect(follower, (items) => items.at(-1) === expected.at(-1))))) {
      // Notices coalesce, so a follower may skip a state, but never goes back or repeats one.
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.map((item) => expected.indexOf(item))).toEqual([...new Set(seen.map((item) => expected.indexOf(item)))].sort());
    }
    expect(await collect(failedOnly, (items) => items.length > 0)).toEqual([run.id]);
    // Eleven followers, four writes: a read when they joined and one per notice, not one per follower per write (44).
    expect(reads).toBeLessThanOrEqual(2 + 4 + 1);

    // Resuming from a time returns every run changed after it, less the overlap.
    const resumed = fanout.follow((each: RunRecord) => each.status, run.createdAt);
    expect(await collect(resumed, (items) => items.length > 0)).toEqual(['failed']);
    for (const follower of [...everything, failedOnly, resumed]) follower.close();
  });

  it('re-reads a little before its last read, so a change committed late with an earlier time still reaches followers, once', async () => {
    let storeNow = 5_000_000;
    let readerNow = storeNow;
    const store = new MemoryRunStore({ clock: () => storeNow });
    const fanout = new RunListFanout(store, silent, { clock: () => readerNow, overlapMs: 500 });
    const first = await store.createRun(params);
    const follower = fanout.follow((run: RunRecord) => run.id, first.updatedAt - 1);
    expect(await collect(follower, (items) => items.length > 0)).toEqual([first.id]);
    readerNow += 2000;
    storeNow = readerNow;
    const second = await store.createRun(params);
    expect(await collect(follower, (items) => items.length > 0)).toEqual([second.id]);
    // Another writer stamped its change 300 ms before that read began and committed it only now.
    storeNow = readerNow - 300;
    const late = await store.createRun(params);
    expect(await collect(follower, (items) => items.length > 0)).toEqual([late.id]);
    storeNow = readerNow + 10;
    await store.appendEvents(second.id, [{ type: 'run-status-changed', payload: { to: 'pending' } }]);
    // The reads went back over `late` and `second`; only what changed comes out.
    expect(await collect(follower, (items) => items.length > 0)).toEqual([second.id]);
    follower.close();
  });
});
