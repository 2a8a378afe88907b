import { describe, expect, it } from 'vitest';
import { ChangeLatch } from './change-latch.js';
import { MemoryRunStore } from './memory/memory-run-store.js';
import { ChangeCollector, mayBeClaimable, mayConcernAny, mayConcernRun, noticedHead } from './store-change.js';

const [A, B] = ['01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC', '01JD3Q7Y8ZK3V4W5X6Y7Z8A9BD'];

describe('ChangeCollector', () => {
  it('gathers the writes of a turn: each run once at its latest head and status, claimable if any write was', () => {
    const changes = new ChangeCollector();
    expect(changes.take()).toBeUndefined();
    changes.run({ id: A, headSeq: 3, status: 'starting' });
    changes.run({ id: B, headSeq: 1, status: 'queued' }, true);
    changes.run({ id: A, headSeq: 5, status: 'running' });
    changes.run({ id: A, headSeq: 4, status: 'starting' });
    expect(changes.take()).toEqual({
      kind: 'runs',
      runs: [
        { id: A, headSeq: 5, status: 'running' },
        { id: B, headSeq: 1, status: 'queued' },
      ],
      claimable: true,
    });
    expect(changes.take()).toBeUndefined();
  });

  it('drops a head or status it cannot order, and turns everything unknown when one notice was', () => {
    const changes = new ChangeCollector();
    changes.run({ id: A, headSeq: 3, status: 'running' });
    changes.run({ id: A });
    expect(changes.take()).toEqual({ kind: 'runs', runs: [{ id: A }], claimable: false });
    changes.merge({ kind: 'runs', runs: [{ id: B, headSeq: 2 }], claimable: false });
    changes.merge({ kind: 'unknown' });
    expect(changes.take()).toEqual({ kind: 'unknown' });
  });
});

describe('what a notice may concern', () => {
  const named = { kind: 'runs', runs: [{ id: A, headSeq: 7 }], claimable: false } as const;

  it('concerns the runs it names, and anything when unknown', () => {
    expect([mayConcernRun(named, A), mayConcernRun(named, B), mayConcernRun({ kind: 'unknown' }, B)]).toEqual([true, false, true]);
    expect([mayConcernAny(named, new Set([B])), mayConcernAny(named, new Set([A, B]))]).toEqual([false, true]);
    expect([mayBeClaimable(named), mayBeClaimable({ ...named, claimable: true }), mayBeClaimable({ kind: 'unknown' })]).toEqual([
      false,
      true,
      true,
    ]);
    expect([
      noticedHead(named, A),
      noticedHead(named, B),
      noticedHead({ kind: 'unknown' }, A),
      noticedHead({ kind: 'runs', runs: [{ id: A }], claimable: false }, A),
    ]).toEqual([7, undefined, 'unknown', 'unknown']);
  });
});

describe('ChangeLatch following runs', () => {
  it('wakes for its runs only, and with statuses only when one may have moved on', async () => {
    const store = new MemoryRunStore();
    const params = { workflow: 'w', workflowPath: 'w.toml', cwd: '/work', initialStatus: 'queued' as const };
    const [mine, other] = [await store.createRun(params), await store.createRun(params)];
    const statuses = new Map([[mine.id, mine.status]]);
    const latch = new ChangeLatch(store, [mine.id]);
    latch.follow([mine.id], statuses);
    await latch.next(0);
    const idle = new AbortController();
    idle.abort();
    // Another run's write, and a write to this one that leaves it queued: nothing to look at again.
    await store.appendEvents(other.id, [{ type: 'run-status-changed', payload: { to: 'cancelled' } }]);
    await store.appendEvents(mine.id, [{ type: 'artifact-saved', payload: {} }]);
    await store.getRun(mine.id);
    expect(await latch.next(60_000, idle.signal)).toBe(false);
    await store.appendEvents(mine.id, [{ type: 'run-status-changed', payload: { to: 'cancelled' } }]);
    expect(await latch.next(60_000)).toBe(true);
    latch.close();
    await store.close();
  });
});
