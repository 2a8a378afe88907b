/**
 * RunStore contract, runs: creation, reads, every search filter, cursor pagination,
 * archiving, parent links and deletion.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import type { RunRecord } from '../../src/runs/model/run-record.js';
import { rejection, T0, type ContractContext } from './run-store-kit.js';

export function runsContract(ctx: ContractContext): void {
  describe('runs', () => {
    it('creates a run in submitted with a run-created event and reads it back whole', async () => {
      const created = await ctx.create({
        goal: 'fix the bug',
        inputs: { issue: 42, tags: ['a'] },
        labels: { team: 'core' },
        model: 'sonnet',
        autoApprove: true,
      });
      const expected: RunRecord = {
        id: created.id,
        workflow: 'build',
        workflowPath: 'workflows/build.toml',
        goal: 'fix the bug',
        inputs: { issue: 42, tags: ['a'] },
        labels: { team: 'core' },
        status: 'submitted',
        archived: false,
        autoApprove: true,
        dryRun: false,
        model: 'sonnet',
        cwd: '/work/project',
        attempt: 1,
        createdAt: T0,
        updatedAt: T0,
        counts: { events: 1, stages: 0, toolCalls: 0, questionsPending: 0 },
        pendingQuestionIds: [],
      };
      expect(created).toEqual(expected);
      expect(await ctx.store.getRun(created.id)).toEqual(expected);
      const [event] = await ctx.store.listEvents(created.id);
      expect(event).toEqual({
        runId: created.id,
        seq: 1,
        at: T0,
        type: 'run-created',
        payload: {
          workflow: 'build',
          workflowPath: 'workflows/build.toml',
          goal: 'fix the bug',
          inputs: { issue: 42, tags: ['a'] },
          labels: { team: 'core' },
          model: 'sonnet',
          autoApprove: true,
          cwd: '/work/project',
        },
      });
    });

    it('moves a new run to its initial status in the same call, with both events logged', async () => {
      const run = await ctx.create({ initialStatus: 'queued' });
      expect(run.status).toBe('queued');
      expect((await ctx.store.listEvents(run.id)).map((event) => [event.seq, event.type, event.payload.to ?? null])).toEqual([
        [1, 'run-created', null],
        [2, 'run-status-changed', 'queued'],
      ]);
    });

    it('returns undefined for an unknown run and RUN_NOT_FOUND where a run must exist', async () => {
      const missing = newId();
      expect(await ctx.store.getRun(missing)).toBeUndefined();
      const error = await rejection(
        ctx.store.appendEvents(missing, [{ type: 'stage-started', stageId: 'a@1', payload: {} }]),
        'RUN_NOT_FOUND',
      );
      expect(error.message).toContain(missing);
      await rejection(ctx.store.listEvents(missing), 'RUN_NOT_FOUND');
      await rejection(ctx.create({ parentId: missing }), 'RUN_NOT_FOUND');
    });

    it("reads the head of a run's log as getRun counts it, and nothing for an unknown run", async () => {
      const run = await ctx.create();
      expect(await ctx.store.headSeq(run.id)).toBe(1);
      await ctx.store.appendEvents(run.id, [
        { type: 'run-status-changed', payload: { to: 'queued' } },
        { type: 'run-status-changed', payload: { to: 'starting' } },
      ]);
      expect(await ctx.store.headSeq(run.id)).toBe(3);
      expect((await ctx.store.getRun(run.id))?.counts.events).toBe(3);
      const other = await ctx.create();
      expect(await ctx.store.headSeq(other.id)).toBe(1);
      expect(await ctx.store.headSeq(run.id)).toBe(3);
      expect(await ctx.store.headSeq(newId())).toBeUndefined();
    });

    it('refuses bad creation parameters with a message naming the field', async () => {
      expect((await rejection(ctx.store.createRun({ workflowPath: 'x', cwd: '/' } as never), 'RUN_INVALID_PARAMS')).message).toContain(
        "'workflow'",
      );
      expect((await rejection(ctx.create({ labels: { 'bad key!': 'x' } }), 'RUN_INVALID_PARAMS')).message).toContain('bad key!');
      expect((await rejection(ctx.create({ inputs: [] as never }), 'RUN_INVALID_PARAMS')).message).toContain('inputs');
      const run = await ctx.create();
      expect((await rejection(ctx.create({ id: run.id }), 'RUN_INVALID_PARAMS')).message).toContain('already exists');
      expect((await ctx.store.searchRuns({ archived: 'any' })).runs.map((found) => found.id)).toEqual([run.id]);
    });

    it('searches by ids, parent, workflow, labels, status and created range, newest first', async () => {
      const a = await ctx.create({ workflow: 'build', labels: { team: 'core', env: 'prod' } });
      ctx.advance(1000);
      const b = await ctx.createIn('running', { workflow: 'deploy', labels: { team: 'core', env: 'dev' } });
      ctx.advance(1000);
      const c = await ctx.createIn('failed', { workflow: 'build', labels: { team: 'web', env: 'prod' }, parentId: a.id });
      ctx.advance(1000);
      const d = await ctx.createIn('succeeded', { workflow: 'build', labels: { team: 'core', env: 'prod' }, parentId: a.id });
      const ids = async (filter: Parameters<typeof ctx.store.searchRuns>[0]) =>
        (await ctx.store.searchRuns(filter)).runs.map((run) => run.id);
      expect(await ids({})).toEqual([d.id, c.id, b.id, a.id]);
      expect(await ids({ ids: [a.id, c.id] })).toEqual([c.id, a.id]);
      expect(await ids({ parentId: a.id })).toEqual([d.id, c.id]);
      expect(await ids({ workflow: 'deploy' })).toEqual([b.id]);
      expect(await ids({ labels: { team: 'core' } })).toEqual([d.id, b.id, a.id]);
      expect(await ids({ labels: { team: 'core', env: 'prod' } })).toEqual([d.id, a.id]);
      expect(await ids({ status: ['failed', 'succeeded'] })).toEqual([d.id, c.id]);
      expect(await ids({ createdAfter: T0, createdBefore: T0 + 3000 })).toEqual([c.id, b.id]);
      expect(
        await ids({
          status: ['running', 'succeeded', 'submitted'],
          labels: { env: 'prod' },
          createdAfter: T0 - 1,
          createdBefore: T0 + 3000,
        }),
      ).toEqual([a.id]);
      expect(await ids({ labels: { team: 'nobody' } })).toEqual([]);
      expect((await ctx.store.searchRuns({ status: ['succeeded'] })).runs).toEqual([await ctx.store.getRun(d.id)]);
    });

    it('pages through every match with a cursor: no duplicates, no gaps, also across equal timestamps', async () => {
      const made: string[] = [];
      for (let index = 0; index < 23; index += 1) {
        if (index % 3 === 0) ctx.advance(10);
        made.push((await ctx.create({ labels: { batch: index % 2 === 0 ? 'even' : 'odd' } })).id);
      }
      const collect = async (filter: { labels?: Record<string, string> }) => {
        const seen: string[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = await ctx.store.searchRuns({ ...filter, limit: 4, ...(cursor ? { cursor } : {}) });
          expect(page.runs.length).toBeLessThanOrEqual(4);
          seen.push(...page.runs.map((run) => run.id));
          cursor = page.nextCursor;
          pages += 1;
        } while (cursor !== undefined);
        return { seen, pages };
      };
      const all = await collect({});
      expect(all.seen).toEqual([...made].reverse());
      expect(all.pages).toBe(6);
      const even = await collect({ labels: { batch: 'even' } });
      expect(even.seen).toEqual(made.filter((_, index) => index % 2 === 0).reverse());
      expect((await ctx.store.searchRuns({ limit: 23 })).nextCursor).toBeUndefined();
      await rejection(ctx.store.searchRuns({ cursor: 'not-a-cursor' }), 'RUN_INVALID_PARAMS');
      await rejection(ctx.store.searchRuns({ limit: 0 }), 'RUN_INVALID_PARAMS');
      await rejection(ctx.store.searchRuns({ status: ['sleeping' as never] }), 'RUN_INVALID_PARAMS');
      expect((await ctx.store.searchRuns({ limit: 100_000 })).runs).toHaveLength(23);
    });

    it('hides archived runs by default, archives only terminal runs, and a retry unarchives', async () => {
      const live = await ctx.createIn('running');
      const done = await ctx.createIn('failed');
      expect((await rejection(ctx.store.setArchived(live.id, true), 'RUN_NOT_TERMINAL')).message).toContain('running');
      expect(await ctx.store.setArchived(done.id, true)).toMatchObject({ id: done.id, archived: true, counts: { events: 5 } });
      expect((await ctx.store.setArchived(done.id, true)).counts.events).toBe(5);
      expect((await ctx.store.searchRuns()).runs.map((run) => run.id)).toEqual([live.id]);
      expect((await ctx.store.searchRuns({ archived: true })).runs.map((run) => run.id)).toEqual([done.id]);
      expect((await ctx.store.searchRuns({ archived: 'any' })).runs.map((run) => run.id)).toEqual([done.id, live.id]);
      await ctx.store.appendEvents(done.id, [{ type: 'run-status-changed', payload: { to: 'queued' } }]);
      expect(await ctx.store.getRun(done.id)).toMatchObject({ archived: false, status: 'queued', attempt: 2 });
      await rejection(ctx.store.appendEvents(done.id, [{ type: 'run-archived', payload: {} }]), 'RUN_INVALID_PARAMS');
    });

    it('links runs to parents, lists direct children only, and refuses self-links and cycles', async () => {
      const root = await ctx.create();
      const child = await ctx.create({ parentId: root.id });
      const grandchild = await ctx.create({ parentId: child.id });
      expect((await ctx.store.searchRuns({ parentId: root.id })).runs.map((run) => run.id)).toEqual([child.id]);
      expect((await rejection(ctx.store.setParent(root.id, root.id), 'RUN_PARENT_CYCLE')).message).toContain('its own parent');
      const cycle = await rejection(ctx.store.setParent(root.id, grandchild.id), 'RUN_PARENT_CYCLE');
      expect(cycle.message).toContain(root.id);
      expect((await ctx.store.getRun(root.id))?.parentId).toBeUndefined();
      await rejection(ctx.store.setParent(child.id, newId()), 'RUN_NOT_FOUND');
      const moved = await ctx.store.setParent(grandchild.id, root.id);
      expect(moved.parentId).toBe(root.id);
      expect((await ctx.store.searchRuns({ parentId: root.id })).runs.map((run) => run.id)).toEqual([grandchild.id, child.id]);
      const unlinked = await ctx.store.setParent(grandchild.id, null);
      expect(unlinked.parentId).toBeUndefined();
      expect((await ctx.store.listEvents(grandchild.id, { types: ['run-parent-changed'] })).map((event) => event.payload)).toEqual([
        { parentId: root.id },
        { parentId: null },
      ]);
    });

    it('deletes only terminal runs, with their events and questions, and unlinks their children', async () => {
      const parent = await ctx.createIn('running');
      const child = await ctx.create({ parentId: parent.id });
      const questionId = newId();
      await ctx.store.appendEvents(parent.id, [
        { type: 'question-asked', stageId: 'ask@1', payload: { questionId, kind: 'freeform', prompt: 'Why?' } },
      ]);
      expect((await rejection(ctx.store.deleteRun(parent.id), 'RUN_NOT_TERMINAL')).message).toContain('running');
      await ctx.store.appendEvents(parent.id, [{ type: 'run-status-changed', payload: { to: 'cancelled', reason: 'user' } }]);
      await ctx.store.deleteRun(parent.id);
      expect(await ctx.store.getRun(parent.id)).toBeUndefined();
      expect(await ctx.store.getQuestion(questionId)).toBeUndefined();
      await rejection(ctx.store.listEvents(parent.id), 'RUN_NOT_FOUND');
      expect((await ctx.store.getRun(child.id))?.parentId).toBeUndefined();
      await rejection(ctx.store.deleteRun(parent.id), 'RUN_NOT_FOUND');
    });

    it('hands out copies: mutating a result changes nothing stored', async () => {
      const run = await ctx.create({ labels: { team: 'core' } });
      run.labels.team = 'changed';
      run.counts.events = 99;
      expect(await ctx.store.getRun(run.id)).toMatchObject({ labels: { team: 'core' }, counts: { events: 1 } });
    });
  });
}
