/**
 * RunStore contract, change notices (`watchChanges`): every kind of write tells every
 * watcher, never from inside the call that wrote, a stopped watcher hears nothing more,
 * and a closed store stops them all. A notice that names runs names every run written
 * (with a head seq no lower than the write's, when it gives one); `unknown` may come
 * anywhere, and is what a catalogue change is told as. Waiting is on the notices
 * themselves, never on time.
 */
import { describe, expect, it } from 'vitest';
import type { RunStore, StoreChange } from '../../src/runs/store/run-store.js';
import { mayBeClaimable, mayConcernRun } from '../../src/runs/store/store-change.js';
import type { ContractContext } from './run-store-kit.js';

/** Resolves at the store's next notice after this call (then stops listening). */
export function nextNotice(store: RunStore): Promise<void> {
  return new Promise((resolve) => {
    const stop = store.watchChanges(() => {
      stop();
      resolve();
    });
  });
}

/** Resolves with every notice from this call on, up to and including the first that `done` accepts. */
export function noticesUntil(store: RunStore, done: (change: StoreChange) => boolean): Promise<StoreChange[]> {
  const heard: StoreChange[] = [];
  return new Promise((resolve) => {
    const stop = store.watchChanges((change) => {
      heard.push(change);
      if (!done(change)) return;
      stop();
      resolve(heard);
    });
  });
}

/** The head seq a notice gives run `id`: 'unknown' for an unknown notice or a run named without one. */
function headIn(change: StoreChange, id: string): number | 'unknown' | undefined {
  if (change.kind === 'unknown') return 'unknown';
  const named = change.runs.find((run) => run.id === id);
  return named === undefined ? undefined : (named.headSeq ?? 'unknown');
}

export function changesContract(ctx: ContractContext): void {
  describe('change notices', () => {
    it('tells every watcher about a write, after the writing call has returned', async () => {
      const heard: string[] = [];
      let writing = false;
      let heardWhileWriting = false;
      const listen = (name: string) => () => {
        heard.push(name);
        heardWhileWriting ||= writing;
      };
      const stops = [ctx.store.watchChanges(listen('a')), ctx.store.watchChanges(listen('b'))];
      const noticed = nextNotice(ctx.store);
      writing = true;
      const created = ctx.create();
      writing = false;
      await created;
      await noticed;
      expect(heard.slice(0, 2).sort()).toEqual(['a', 'b']);
      expect(heardWhileWriting).toBe(false);
      stops.forEach((stop) => stop());
    });

    it('notices appends, lease changes, archive, catalogue changes and deletes', async () => {
      const run = await ctx.createIn('queued');
      const writes: [string, () => Promise<unknown>][] = [
        ['append', () => ctx.store.appendEvents(run.id, [{ type: 'artifact-saved', payload: {} }])],
        ['claim', () => ctx.store.claimRun('worker-a', 1000)],
        ['renew', () => ctx.store.renewLease(run.id, 'worker-a', 2000)],
        ['release', () => ctx.store.releaseLease(run.id, 'worker-a')],
        ['cancel', () => ctx.store.appendEvents(run.id, [{ type: 'run-status-changed', payload: { to: 'cancelled' } }])],
        ['archive', () => ctx.store.setArchived(run.id, true)],
        ['put server', () => ctx.store.putMcpServer('docs', { command: 'docs-server' })],
        ['delete server', () => ctx.store.deleteMcpServer('docs')],
        ['delete run', () => ctx.store.deleteRun(run.id)],
      ];
      const noticed: string[] = [];
      for (const [name, write] of writes) {
        const notice = nextNotice(ctx.store);
        await write();
        await notice;
        noticed.push(name);
      }
      expect(noticed).toEqual(writes.map(([name]) => name));
    });

    it('names the run written, at its new head or later, unless it cannot say (unknown)', async () => {
      const [a, b] = [await ctx.createIn('running'), await ctx.createIn('running')];
      const newHead = a.counts.events + 1;
      const told = (change: StoreChange) => {
        const head = headIn(change, a.id);
        return head === 'unknown' || (head !== undefined && head >= newHead);
      };
      const heard = noticesUntil(ctx.store, told);
      // A write to another run first: its notice does not stand for `a`'s.
      await ctx.store.appendEvents(b.id, [{ type: 'artifact-saved', payload: {} }]);
      const [appended] = await ctx.store.appendEvents(a.id, [{ type: 'artifact-saved', payload: {} }]);
      expect(appended?.seq).toBe(newHead);
      const last = (await heard).at(-1)!;
      expect(last.kind === 'unknown' || last.runs.some((run) => run.id === a.id)).toBe(true);
    });

    it('names every run of writes made together', async () => {
      const [a, b] = [await ctx.createIn('running'), await ctx.createIn('running')];
      const pending = new Set([a.id, b.id]);
      const heard = noticesUntil(ctx.store, (change) => {
        for (const id of [...pending]) if (mayConcernRun(change, id)) pending.delete(id);
        return pending.size === 0;
      });
      await Promise.all([a, b].map((run) => ctx.store.appendEvents(run.id, [{ type: 'artifact-saved', payload: {} }])));
      await heard;
      expect(pending.size).toBe(0);
    });

    it('says a run may be claimable when one is queued or its lease is released', async () => {
      const queued = noticesUntil(ctx.store, mayBeClaimable);
      const run = await ctx.createIn('queued');
      await queued;
      await ctx.store.claimRun('worker-a', 1000);
      const released = noticesUntil(ctx.store, (change) => mayBeClaimable(change) && mayConcernRun(change, run.id));
      await ctx.store.releaseLease(run.id, 'worker-a');
      expect((await released).length).toBeGreaterThan(0);
    });

    it('tells a change to the MCP server catalogue as unknown', async () => {
      const put = noticesUntil(ctx.store, (change) => change.kind === 'unknown');
      await ctx.store.putMcpServer('docs', { command: 'docs-server' });
      expect((await put).at(-1)).toEqual({ kind: 'unknown' });
      const deleted = noticesUntil(ctx.store, (change) => change.kind === 'unknown');
      await ctx.store.deleteMcpServer('docs');
      expect((await deleted).at(-1)).toEqual({ kind: 'unknown' });
    });

    it('tells a stopped watcher nothing more, and the others go on hearing', async () => {
      let stoppedHeard = 0;
      const stop = ctx.store.watchChanges(() => (stoppedHeard += 1));
      stop();
      stop();
      const notice = nextNotice(ctx.store);
      await ctx.create();
      await notice;
      expect(stoppedHeard).toBe(0);
    });

    // A closed store takes no writes, so nothing could notify here; what is checked is that
    // closing with a watcher open, and watching afterwards, are harmless. That the SQLite
    // watch lets go of its files and connection is tested in change-watch.test.ts.
    it('closes with a watcher open, and lets a closed store be watched and unwatched', async () => {
      const stopOpen = ctx.store.watchChanges(() => {});
      await ctx.store.close();
      const stopClosed = ctx.store.watchChanges(() => {});
      expect(() => {
        stopOpen();
        stopClosed();
      }).not.toThrow();
    });
  });
}
