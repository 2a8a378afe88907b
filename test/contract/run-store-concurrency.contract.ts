/**
 * RunStore contract, concurrency keys: a queued (or orphaned) run is claimed only while
 * every key it carries has room; a key is held by unfinished runs carrying it under a live
 * lease, so ending the run, releasing the lease or letting it expire frees the slot.
 */
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/runs/model/run-record.js';
import { rejection, type ContractContext } from './run-store-kit.js';

export function concurrencyContract(ctx: ContractContext): void {
  describe('concurrency keys', () => {
    const claimAll = async (worker: string, leaseMs = 1000): Promise<string[]> => {
      const ids: string[] = [];
      for (let run = await ctx.store.claimRun(worker, leaseMs); run !== undefined; run = await ctx.store.claimRun(worker, leaseMs))
        ids.push(run.id);
      return ids;
    };
    const start = (run: RunRecord) =>
      ctx.store.appendEvents(run.id, [
        { type: 'run-status-changed', payload: { to: 'starting' } },
        { type: 'run-status-changed', payload: { to: 'running' } },
      ]);

    it('keeps a run queued while its key is full and passes it over for runs behind it', async () => {
      const first = await ctx.createIn('queued', { concurrency: [{ key: 'repo:a', limit: 1 }] });
      ctx.advance(10);
      const second = await ctx.createIn('queued', { concurrency: [{ key: 'repo:a', limit: 1 }] });
      ctx.advance(10);
      const other = await ctx.createIn('queued', { concurrency: [{ key: 'repo:b', limit: 1 }] });
      ctx.advance(10);
      const plain = await ctx.createIn('queued');
      expect(first.concurrency).toEqual([{ key: 'repo:a', limit: 1 }]);
      expect(await claimAll('w1')).toEqual([first.id, other.id, plain.id]);
      expect(await ctx.store.concurrencyHeld(['repo:a', 'repo:b', 'repo:c'])).toEqual({ 'repo:a': 1, 'repo:b': 1, 'repo:c': 0 });
      // The holder ends: its slot is free, and the run behind it can start.
      await start(first);
      await ctx.store.appendEvents(first.id, [{ type: 'run-status-changed', payload: { to: 'succeeded' } }]);
      expect(await claimAll('w2')).toEqual([second.id]);
      expect((await ctx.store.getRun(second.id))?.status).toBe('queued');
    });

    it('frees a slot when the lease is released or expires, and an orphan needs room too', async () => {
      const holder = await ctx.createIn('queued', { concurrency: [{ key: 'k', limit: 1 }] });
      ctx.advance(10);
      const waiting = await ctx.createIn('queued', { concurrency: [{ key: 'k', limit: 1 }] });
      expect(await claimAll('crashed')).toEqual([holder.id]);
      await start(holder);
      ctx.advance(999);
      expect(await ctx.store.claimRun('w', 1000)).toBeUndefined();
      // The crashed runner's lease runs out: its slot is free, and the waiting run takes it
      // (the orphan waits for a slot like any other run carrying the key).
      ctx.advance(1);
      expect(await ctx.store.concurrencyHeld(['k'])).toEqual({ k: 0 });
      expect(await claimAll('w')).toEqual([holder.id]);
      // A released lease frees the slot, but the run is claimable again, first in line.
      expect(await ctx.store.releaseLease(holder.id, 'w')).toBe(true);
      expect(await claimAll('w2')).toEqual([holder.id]);
      await ctx.store.appendEvents(holder.id, [{ type: 'run-status-changed', payload: { to: 'failed' } }]);
      expect(await claimAll('w')).toEqual([waiting.id]);
    });

    it('needs room under every key, counts each limit on its own, and lets a limit above one fill', async () => {
      const both = await ctx.createIn('queued', {
        concurrency: [
          { key: 'repo', limit: 2 },
          { key: 'model', limit: 1 },
        ],
      });
      ctx.advance(10);
      const modelToo = await ctx.createIn('queued', { concurrency: [{ key: 'model', limit: 1 }] });
      ctx.advance(10);
      const repoOnly = await ctx.createIn('queued', { concurrency: [{ key: 'repo', limit: 2 }] });
      ctx.advance(10);
      const repoThird = await ctx.createIn('queued', { concurrency: [{ key: 'repo', limit: 2 }] });
      expect(await claimAll('w')).toEqual([both.id, repoOnly.id]);
      expect(await ctx.store.concurrencyHeld(['repo', 'model'])).toEqual({ repo: 2, model: 1 });
      await ctx.store.releaseLease(both.id, 'w');
      // `both` is queued again and first in line; it takes the slots back before the others.
      expect(await claimAll('w')).toEqual([both.id]);
      await start(repoOnly);
      await ctx.store.appendEvents(repoOnly.id, [{ type: 'run-status-changed', payload: { to: 'cancelled' } }]);
      expect(await claimAll('w')).toEqual([repoThird.id]);
      expect((await ctx.store.getRun(modelToo.id))?.lease).toBeUndefined();
    });

    it('refuses malformed keys by name', async () => {
      await rejection(ctx.create({ concurrency: [{ key: '', limit: 1 }] }), 'RUN_INVALID_PARAMS');
      await rejection(ctx.create({ concurrency: [{ key: 'k', limit: 0 }] }), 'RUN_INVALID_PARAMS');
      await rejection(
        ctx.create({
          concurrency: [
            { key: 'k', limit: 1 },
            { key: 'k', limit: 2 },
          ],
        }),
        'RUN_INVALID_PARAMS',
      );
      await rejection(ctx.store.concurrencyHeld([3 as unknown as string]), 'RUN_INVALID_PARAMS');
    });
  });
}
