/**
 * RunStore contract, coordination and catalogue: runner leases (claim, renew, expiry,
 * release, no double claim), the MCP server catalogue, id validation on every method,
 * and a closed store.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import type { RunStore } from '../../src/runs/store/run-store.js';
import { rejection, T0, type ContractContext } from './run-store-kit.js';

export function leasesContract(ctx: ContractContext): void {
  describe('leases', () => {
    it('claims the oldest queued run, one per worker, and nothing when none is left', async () => {
      const older = await ctx.createIn('queued');
      ctx.advance(10);
      const newer = await ctx.createIn('queued');
      await ctx.createIn('submitted');
      await ctx.createIn('paused');
      const first = await ctx.store.claimRun('worker-a', 1000);
      expect(first).toMatchObject({ id: older.id, status: 'queued', lease: { workerId: 'worker-a', expiresAt: T0 + 10 + 1000 } });
      expect((await ctx.store.claimRun('worker-b', 1000))?.id).toBe(newer.id);
      expect(await ctx.store.claimRun('worker-c', 1000)).toBeUndefined();
      expect((await ctx.store.getRun(older.id))?.lease).toEqual({ workerId: 'worker-a', expiresAt: T0 + 1010 });
    });

    it('claims higher priority first, then age, and no run waits longer than a minute per step of difference', async () => {
      const low = await ctx.createIn('queued', { priority: -1 });
      ctx.advance(10);
      const plain = await ctx.createIn('queued');
      ctx.advance(10);
      const urgent = await ctx.createIn('queued', { priority: 2 });
      ctx.advance(10);
      const alsoUrgent = await ctx.createIn('queued', { priority: 2 });
      expect(urgent.priority).toBe(2);
      expect(plain.priority).toBeUndefined();
      // Two minutes (two steps) after a plain run, a priority-2 run no longer goes before it.
      ctx.advance(2 * 60_000);
      const lateUrgent = await ctx.createIn('queued', { priority: 2 });
      const order = [];
      for (let claim = await ctx.store.claimRun('w', 1000); claim !== undefined; claim = await ctx.store.claimRun('w', 1000))
        order.push(claim.id);
      expect(order).toEqual([urgent.id, alsoUrgent.id, plain.id, lateUrgent.id, low.id]);
      await rejection(ctx.create({ priority: 101 }), 'RUN_INVALID_PARAMS');
      await rejection(ctx.create({ priority: 1.5 }), 'RUN_INVALID_PARAMS');
    });

    it('renews only for the holder, and hands an expired lease of a running run to another worker', async () => {
      const run = await ctx.createIn('queued');
      await ctx.store.claimRun('worker-a', 1000);
      await ctx.store.appendEvents(run.id, [
        { type: 'run-status-changed', payload: { to: 'starting' } },
        { type: 'run-status-changed', payload: { to: 'running' } },
      ]);
      ctx.advance(900);
      expect(await ctx.store.renewLease(run.id, 'worker-a', 1000)).toBe(true);
      expect(await ctx.store.renewLease(run.id, 'worker-b', 1000)).toBe(false);
      ctx.advance(999);
      expect(await ctx.store.claimRun('worker-b', 1000)).toBeUndefined();
      ctx.advance(1);
      const reclaimed = await ctx.store.claimRun('worker-b', 5000);
      expect(reclaimed).toMatchObject({ id: run.id, status: 'running', lease: { workerId: 'worker-b', expiresAt: T0 + 1900 + 5000 } });
      expect(await ctx.store.renewLease(run.id, 'worker-a', 1000)).toBe(false);
      expect(await ctx.store.releaseLease(run.id, 'worker-a')).toBe(false);
      expect(await ctx.store.releaseLease(run.id, 'worker-b')).toBe(true);
      expect((await ctx.store.getRun(run.id))?.lease).toBeUndefined();
      expect((await ctx.store.claimRun('worker-c', 1000))?.id).toBe(run.id);
    });

    it("frees a live lease of a dead holder for whoever names that holder first (runners taking over a crashed runner's runs)", async () => {
      const run = await ctx.createIn('running');
      expect((await ctx.store.claimRun('dead-worker', 60_000))?.id).toBe(run.id);
      const released = await Promise.all([ctx.store.releaseLease(run.id, 'dead-worker'), ctx.store.releaseLease(run.id, 'dead-worker')]);
      expect(released.sort()).toEqual([false, true]);
      expect((await ctx.store.claimRun('worker-b', 1000))?.id).toBe(run.id);
      expect(await ctx.store.releaseLease(run.id, 'dead-worker')).toBe(false);
      expect((await ctx.store.getRun(run.id))?.lease?.workerId).toBe('worker-b');
    });

    it('prefers an orphaned running run to a queued one, skips paused runs, and ends the lease when the run ends', async () => {
      const queued = await ctx.createIn('queued');
      const running = await ctx.createIn('running');
      const paused = await ctx.createIn('paused');
      expect((await ctx.store.claimRun('worker-a', 1000))?.id).toBe(running.id);
      expect((await ctx.store.claimRun('worker-a', 1000))?.id).toBe(queued.id);
      expect(await ctx.store.claimRun('worker-a', 1000)).toBeUndefined();
      await ctx.store.appendEvents(running.id, [{ type: 'run-status-changed', payload: { to: 'succeeded' } }]);
      expect((await ctx.store.getRun(running.id))?.lease).toBeUndefined();
      expect(await ctx.store.renewLease(running.id, 'worker-a', 1000)).toBe(false);
      ctx.advance(5000);
      expect((await ctx.store.claimRun('worker-b', 1000))?.id).toBe(queued.id);
      expect((await ctx.store.getRun(paused.id))?.lease).toBeUndefined();
    });

    it('with an environment fingerprint, claims only runs created with it (orphans and queued); without one, any run', async () => {
      const mine = await ctx.createIn('queued', { envFingerprint: 'fp-mine' });
      const theirs = await ctx.createIn('running', { envFingerprint: 'fp-theirs' });
      const unmarked = await ctx.createIn('queued');
      const mineRunning = await ctx.createIn('running', { envFingerprint: 'fp-mine' });
      expect(mine.envFingerprint).toBe('fp-mine');
      expect((await ctx.store.getRun(mine.id))?.envFingerprint).toBe('fp-mine');
      const same = { envFingerprint: 'fp-mine' };
      expect((await ctx.store.claimRun('runner-mine', 1000, ctx.now(), same))?.id).toBe(mineRunning.id);
      expect((await ctx.store.claimRun('runner-mine', 1000, ctx.now(), same))?.id).toBe(mine.id);
      expect(await ctx.store.claimRun('runner-mine', 1000, ctx.now(), same)).toBeUndefined();
      expect(await ctx.store.claimRun('runner-other', 1000, ctx.now(), { envFingerprint: 'fp-nobody' })).toBeUndefined();
      expect((await ctx.store.claimRun('worker', 1000, ctx.now(), {}))?.id).toBe(theirs.id);
      expect((await ctx.store.claimRun('worker', 1000))?.id).toBe(unmarked.id);
      await rejection(ctx.store.claimRun('runner', 1000, ctx.now(), { envFingerprint: '' }), 'RUN_INVALID_PARAMS');
    });

    it('never hands one run to two workers claiming at once', async () => {
      const runs = await Promise.all([ctx.createIn('queued'), ctx.createIn('queued'), ctx.createIn('queued')]);
      const claims = await Promise.all(Array.from({ length: 10 }, (_, index) => ctx.store.claimRun(`worker-${index}`, 1000)));
      const claimed = claims.filter((run) => run !== undefined).map((run) => run.id);
      expect(claimed.sort()).toEqual(runs.map((run) => run.id).sort());
    });

    it("refuses the append of a worker whose lease was taken over (fencing), and takes the holder's and unleased ones", async () => {
      const run = await ctx.createIn('queued');
      await ctx.store.claimRun('worker-a', 1000);
      await ctx.store.appendEvents(run.id, [{ type: 'run-status-changed', payload: { to: 'starting' } }], { leaseOwner: 'worker-a' });
      ctx.advance(1000);
      expect((await ctx.store.claimRun('worker-b', 1000))?.id).toBe(run.id);
      const refused = await rejection(
        ctx.store.appendEvents(run.id, [{ type: 'artifact-saved', payload: {} }], { leaseOwner: 'worker-a' }),
        'RUN_LEASE_LOST',
      );
      expect(refused.message).toContain('worker-b');
      await ctx.store.appendEvents(run.id, [{ type: 'artifact-saved', payload: { by: 'b' } }], { leaseOwner: 'worker-b' });
      await ctx.store.appendEvents(run.id, [{ type: 'artifact-saved', payload: { by: 'a person' } }]);
      // The run ends under worker-b (its lease ends with it): worker-a is still refused.
      await ctx.store.appendEvents(run.id, [{ type: 'run-status-changed', payload: { to: 'cancelled' } }], { leaseOwner: 'worker-b' });
      expect(
        (
          await rejection(
            ctx.store.appendEvents(run.id, [{ type: 'artifact-saved', payload: {} }], { leaseOwner: 'worker-a' }),
            'RUN_LEASE_LOST',
          )
        ).message,
      ).toContain('has ended (cancelled)');
      expect((await ctx.store.listEvents(run.id, { types: ['artifact-saved'] })).map((event) => event.payload)).toEqual([
        { by: 'b' },
        { by: 'a person' },
      ]);
    });

    it('refuses bad lease arguments', async () => {
      const run = await ctx.createIn('queued');
      await rejection(ctx.store.claimRun('', 1000), 'RUN_INVALID_PARAMS');
      await rejection(ctx.store.claimRun('worker', 0), 'RUN_INVALID_PARAMS');
      await rejection(ctx.store.renewLease(run.id, 'worker', -5), 'RUN_INVALID_PARAMS');
      await rejection(ctx.store.renewLease(newId(), 'worker', 5), 'RUN_NOT_FOUND');
    });
  });

  describe('MCP server catalogue', () => {
    it('puts, overwrites, lists by name and deletes servers', async () => {
      await ctx.store.putMcpServer('zeta', { type: 'stdio', command: ['zeta'] });
      ctx.advance(5);
      await ctx.store.putMcpServer('alpha', { type: 'http', url: 'http://localhost:1', skip: undefined } as never);
      ctx.advance(5);
      await ctx.store.putMcpServer('zeta', { type: 'stdio', command: ['zeta', '--v2'] });
      expect(await ctx.store.listMcpServers()).toEqual([
        { name: 'alpha', config: { type: 'http', url: 'http://localhost:1' }, updatedAt: T0 + 5 },
        { name: 'zeta', config: { type: 'stdio', command: ['zeta', '--v2'] }, updatedAt: T0 + 10 },
      ]);
      expect(await ctx.store.deleteMcpServer('zeta')).toBe(true);
      expect(await ctx.store.deleteMcpServer('zeta')).toBe(false);
      expect((await ctx.store.listMcpServers()).map((server) => server.name)).toEqual(['alpha']);
      await rejection(ctx.store.putMcpServer('../evil', {}), 'RUN_INVALID_PARAMS');
      await rejection(ctx.store.putMcpServer('ok', 'text' as never), 'RUN_INVALID_PARAMS');
    });
  });

  describe('ids', () => {
    it('refuses a non-ULID id with INVALID_ID in every method that takes one', async () => {
      const run = await ctx.createIn('queued');
      const bad = '../../etc/passwd';
      const calls: [string, (store: RunStore) => Promise<unknown>][] = [
        ['createRun id', (store) => store.createRun({ id: bad, workflow: 'w', workflowPath: 'w.toml', cwd: '/' })],
        ['createRun parentId', (store) => store.createRun({ parentId: bad, workflow: 'w', workflowPath: 'w.toml', cwd: '/' })],
        ['getRun', (store) => store.getRun(bad)],
        ['headSeq', (store) => store.headSeq(bad)],
        ['searchRuns ids', (store) => store.searchRuns({ ids: [run.id, bad] })],
        ['searchRuns parentId', (store) => store.searchRuns({ parentId: bad })],
        ['appendEvents', (store) => store.appendEvents(bad, [])],
        ['listEvents', (store) => store.listEvents(bad)],
        ['setArchived', (store) => store.setArchived(bad, true)],
        ['setParent child', (store) => store.setParent(bad, null)],
        ['setParent parent', (store) => store.setParent(run.id, bad)],
        ['listQuestions', (store) => store.listQuestions(bad)],
        ['getQuestion', (store) => store.getQuestion(bad)],
        [
          'question-asked questionId',
          (store) =>
            store.appendEvents(run.id, [
              { type: 'question-asked', stageId: 'a@1', payload: { questionId: bad, kind: 'yes_no', prompt: 'x' } },
            ]),
        ],
        ['renewLease', (store) => store.renewLease(bad, 'worker', 10)],
        ['releaseLease', (store) => store.releaseLease(bad, 'worker')],
        ['deleteRun', (store) => store.deleteRun(bad)],
      ];
      for (const [name, call] of calls) {
        const error = await rejection(call(ctx.store), 'INVALID_ID').catch((failure: Error) => {
          throw new Error(`${name}: ${failure.message}`);
        });
        expect(error.message, name).toContain('../../etc/passwd');
      }
      expect((await ctx.store.searchRuns({ archived: 'any' })).runs).toHaveLength(1);
    });
  });

  describe('close', () => {
    it('refuses calls after close with STORE_FAILED', async () => {
      const run = await ctx.create();
      await ctx.store.close();
      expect((await rejection(ctx.store.getRun(run.id), 'STORE_FAILED')).message).toContain('closed');
      await rejection(ctx.store.createRun({ workflow: 'w', workflowPath: 'w.toml', cwd: '/' }), 'STORE_FAILED');
      await ctx.store.close();
      ctx.store = await ctx.make({ clock: ctx.clock, newId });
    });
  });
}
