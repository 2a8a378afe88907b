/**
 * RunStore contract, change notices (`watchChanges`): every kind of write tells every
 * watcher, never from inside the call that wrote, a stopped watcher hears nothing more,
 * and a closed store stops them all. Waiting is on the notices themselves, never on time.
 */
import { describe, expect, it } from 'vitest';
import type { RunStore } from '../../src/runs/store/run-store.js';
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
