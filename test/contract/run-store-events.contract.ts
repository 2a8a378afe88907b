/**
 * RunStore contract, events: per-run sequence numbers, atomic batches, listing options,
 * the projected summary, checked transitions and questions.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import type { RunRecord } from '../../src/runs/model/run-record.js';
import { rejection, T0, type ContractContext } from './run-store-kit.js';

export function eventsContract(ctx: ContractContext): void {
  describe('events', () => {
    it('numbers events 1..n per run with no gaps across batches and runs', async () => {
      const a = await ctx.create();
      const b = await ctx.create();
      const first = await ctx.store.appendEvents(a.id, [
        { type: 'artifact-saved', payload: { path: 'x' } },
        { type: 'artifact-saved', payload: { path: 'y' }, at: T0 + 5 },
      ]);
      expect(first).toEqual([
        { runId: a.id, seq: 2, at: T0, type: 'artifact-saved', payload: { path: 'x' } },
        { runId: a.id, seq: 3, at: T0 + 5, type: 'artifact-saved', payload: { path: 'y' } },
      ]);
      await ctx.store.appendEvents(b.id, [{ type: 'artifact-saved', payload: {} }]);
      await ctx.store.appendEvents(a.id, [{ type: 'model-turn-finished', stageId: 'plan@1', payload: { tokens: 10 } }]);
      expect(await ctx.store.appendEvents(a.id, [])).toEqual([]);
      expect((await ctx.store.listEvents(a.id)).map((event) => event.seq)).toEqual([1, 2, 3, 4]);
      expect((await ctx.store.listEvents(b.id)).map((event) => event.seq)).toEqual([1, 2]);
    });

    it('appends a batch atomically: one bad event and none of the batch is stored', async () => {
      const run = await ctx.createIn('running');
      const before = await ctx.store.getRun(run.id);
      const error = await rejection(
        ctx.store.appendEvents(run.id, [
          { type: 'stage-started', stageId: 'plan@1', payload: {} },
          { type: 'run-status-changed', payload: { to: 'queued' } },
        ]),
        'RUN_INVALID_TRANSITION',
      );
      expect(error.message).toContain('is running');
      expect(await ctx.store.getRun(run.id)).toEqual(before);
      expect(await ctx.store.listEvents(run.id)).toHaveLength(4);
      for (const bad of [
        { type: 'StageStarted', payload: {} },
        { type: 'stage-started', stageId: '../x', payload: {} },
        { type: 'artifact-saved', payload: [] },
        { type: 'artifact-saved', payload: {}, at: -1 },
      ]) {
        await rejection(ctx.store.appendEvents(run.id, [bad as never]), 'RUN_INVALID_PARAMS');
      }
      await rejection(ctx.store.appendEvents(run.id, [{ type: 'run-created', payload: {} }]), 'RUN_INVALID_PARAMS');
      expect(await ctx.store.listEvents(run.id)).toHaveLength(4);
    });

    it('lists events after/before a seq, by type, in either direction, with a limit', async () => {
      const run = await ctx.create();
      await ctx.store.appendEvents(
        run.id,
        Array.from({ length: 9 }, (_, index) => ({ type: index % 3 === 0 ? 'tool-call-started' : 'artifact-saved', payload: { index } })),
      );
      const seqs = async (options: Parameters<typeof ctx.store.listEvents>[1]) =>
        (await ctx.store.listEvents(run.id, options)).map((event) => event.seq);
      expect(await seqs({ afterSeq: 3, limit: 2 })).toEqual([4, 5]);
      expect(await seqs({ beforeSeq: 4, direction: 'desc' })).toEqual([3, 2, 1]);
      expect(await seqs({ direction: 'desc', limit: 3 })).toEqual([10, 9, 8]);
      expect(await seqs({ types: ['tool-call-started'] })).toEqual([2, 5, 8]);
      expect(await seqs({ afterSeq: 2, beforeSeq: 8, types: ['tool-call-started', 'run-created'] })).toEqual([5]);
      await rejection(ctx.store.listEvents(run.id, { direction: 'sideways' as never }), 'RUN_INVALID_PARAMS');
      await rejection(ctx.store.listEvents(run.id, { afterSeq: -1 }), 'RUN_INVALID_PARAMS');
    });

    it('keeps the summary as the projection of the events', async () => {
      const run = await ctx.create({ initialStatus: 'queued' });
      const questionId = newId();
      const step = async (ms: number, events: Parameters<typeof ctx.store.appendEvents>[1]) => {
        ctx.advance(ms);
        await ctx.store.appendEvents(run.id, events);
      };
      await step(10, [{ type: 'run-status-changed', payload: { to: 'starting' } }]);
      await step(10, [
        { type: 'run-status-changed', payload: { to: 'running' } },
        { type: 'stage-started', stageId: 'plan@1', payload: {} },
      ]);
      await step(10, [
        { type: 'tool-call-started', stageId: 'plan@1', payload: { tool: 'shell' } },
        { type: 'tool-call-finished', stageId: 'plan@1', payload: {} },
        { type: 'stage-finished', stageId: 'plan@1', payload: { outcome: 'ok' } },
      ]);
      await step(10, [
        { type: 'stage-started', stageId: 'approve@1', payload: {} },
        { type: 'question-asked', stageId: 'approve@1', payload: { questionId, kind: 'yes_no', prompt: 'Ship it?' } },
        { type: 'run-status-changed', payload: { to: 'blocked', reason: 'waiting for an answer' } },
      ]);
      const blocked = await ctx.store.getRun(run.id);
      expect(blocked).toMatchObject({
        status: 'blocked',
        reason: 'waiting for an answer',
        pendingQuestionIds: [questionId],
        counts: { events: 11, stages: 2, toolCalls: 1, questionsPending: 1 },
      });
      await step(10, [
        { type: 'question-answered', stageId: 'approve@1', payload: { questionId, answer: true } },
        { type: 'run-status-changed', payload: { to: 'running' } },
      ]);
      await step(10, [
        { type: 'stage-finished', stageId: 'approve@1', payload: {} },
        { type: 'run-status-changed', payload: { to: 'succeeded' } },
      ]);
      const expected: RunRecord = {
        ...run,
        status: 'succeeded',
        currentStageId: 'approve@1',
        startedAt: T0 + 20,
        finishedAt: T0 + 60,
        updatedAt: T0 + 60,
        counts: { events: 15, stages: 2, toolCalls: 1, questionsPending: 0 },
        pendingQuestionIds: [],
      };
      expect(await ctx.store.getRun(run.id)).toEqual(expected);
    });

    it('checks every status change: illegal ones name the current state, from is compare-and-set', async () => {
      const run = await ctx.createIn('succeeded');
      const final = await rejection(
        ctx.store.appendEvents(run.id, [{ type: 'run-status-changed', payload: { to: 'running' } }]),
        'RUN_INVALID_TRANSITION',
      );
      expect(final.message).toContain('is succeeded');
      expect(final.data).toMatchObject({ from: 'succeeded', to: 'running', allowed: [] });
      const queued = await ctx.createIn('queued');
      const wrong = await rejection(
        ctx.store.appendEvents(queued.id, [{ type: 'run-status-changed', payload: { from: 'running', to: 'paused' } }]),
        'RUN_INVALID_TRANSITION',
      );
      expect(wrong.message).toContain('is queued, not running');
      const denied = await ctx.createIn('pending');
      await ctx.store.appendEvents(denied.id, [
        { type: 'run-status-changed', payload: { from: 'pending', to: 'cancelled', reason: 'denied: not today' } },
      ]);
      expect(await ctx.store.getRun(denied.id)).toMatchObject({ status: 'cancelled', reason: 'denied: not today', finishedAt: T0 });
      const stored = await ctx.store.listEvents(denied.id, { types: ['run-status-changed'], direction: 'desc', limit: 1 });
      expect(stored[0]?.payload).toEqual({ from: 'pending', to: 'cancelled', reason: 'denied: not today' });
    });

    it('lets only one of two writers move a run out of a state', async () => {
      const run = await ctx.createIn('running');
      const results = await Promise.allSettled([
        ctx.store.appendEvents(run.id, [{ type: 'run-status-changed', payload: { from: 'running', to: 'paused' } }]),
        ctx.store.appendEvents(run.id, [{ type: 'run-status-changed', payload: { from: 'running', to: 'blocked' } }]),
      ]);
      expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
      const lost = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason).toMatchObject({ code: 'RUN_INVALID_TRANSITION' });
      expect((await ctx.store.listEvents(run.id)).map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    });

    it('retries a failed run as a new attempt, clearing finishedAt', async () => {
      const run = await ctx.createIn('failed');
      ctx.advance(100);
      await ctx.store.appendEvents(run.id, [{ type: 'run-status-changed', payload: { to: 'queued', reason: 'retry' } }]);
      const retried = await ctx.store.getRun(run.id);
      expect(retried).toMatchObject({ status: 'queued', attempt: 2, reason: 'retry' });
      expect(retried?.finishedAt).toBeUndefined();
    });
  });

  describe('questions', () => {
    it('derives question records from events and refuses a second answer', async () => {
      const run = await ctx.createIn('running');
      const [choice, free] = [newId(), newId()];
      await ctx.store.appendEvents(run.id, [
        {
          type: 'question-asked',
          stageId: 'review@1',
          payload: { questionId: choice, kind: 'choice', prompt: 'Which?', options: ['a', 'b'] },
        },
        { type: 'question-asked', stageId: 'review@1', at: T0 + 1, payload: { questionId: free, kind: 'freeform', prompt: 'Notes?' } },
      ]);
      expect(await ctx.store.listQuestions(run.id, { pending: true })).toEqual([
        {
          id: choice,
          runId: run.id,
          stageId: 'review@1',
          kind: 'choice',
          prompt: 'Which?',
          options: ['a', 'b'],
          status: 'pending',
          askedAt: T0,
        },
        { id: free, runId: run.id, stageId: 'review@1', kind: 'freeform', prompt: 'Notes?', status: 'pending', askedAt: T0 + 1 },
      ]);
      const wrong = await rejection(
        ctx.store.appendEvents(run.id, [{ type: 'question-answered', payload: { questionId: choice, answer: 'c' } }]),
        'RUN_INVALID_PARAMS',
      );
      expect(wrong.message).toContain('"a", "b"');
      ctx.advance(50);
      await ctx.store.appendEvents(run.id, [{ type: 'question-answered', payload: { questionId: choice, answer: 'b' } }]);
      expect(await ctx.store.getQuestion(choice)).toEqual({
        id: choice,
        runId: run.id,
        stageId: 'review@1',
        kind: 'choice',
        prompt: 'Which?',
        options: ['a', 'b'],
        status: 'answered',
        answer: 'b',
        askedAt: T0,
        answeredAt: T0 + 50,
      });
      expect((await ctx.store.listQuestions(run.id, { pending: true })).map((question) => question.id)).toEqual([free]);
      expect((await ctx.store.listQuestions(run.id)).map((question) => question.id)).toEqual([choice, free]);
      expect(await ctx.store.getRun(run.id)).toMatchObject({ pendingQuestionIds: [free], counts: { questionsPending: 1 } });
      await rejection(
        ctx.store.appendEvents(run.id, [{ type: 'question-answered', payload: { questionId: choice, answer: 'a' } }]),
        'QUESTION_NOT_PENDING',
      );
      await rejection(
        ctx.store.appendEvents(run.id, [{ type: 'question-answered', payload: { questionId: newId(), answer: 'a' } }]),
        'QUESTION_NOT_FOUND',
      );
      expect(await ctx.store.getQuestion(newId())).toBeUndefined();
    });

    it('refuses malformed questions: no stage, no options for a choice, a reused id, a question of another run', async () => {
      const run = await ctx.createIn('running');
      const other = await ctx.createIn('running');
      const id = newId();
      await rejection(
        ctx.store.appendEvents(run.id, [{ type: 'question-asked', payload: { questionId: id, kind: 'yes_no', prompt: 'Ok?' } }]),
        'RUN_INVALID_PARAMS',
      );
      await rejection(
        ctx.store.appendEvents(run.id, [
          { type: 'question-asked', stageId: 'a@1', payload: { questionId: id, kind: 'choice', prompt: 'Ok?' } },
        ]),
        'RUN_INVALID_PARAMS',
      );
      await rejection(
        ctx.store.appendEvents(run.id, [
          { type: 'question-asked', stageId: 'a@1', payload: { questionId: id, kind: 'telepathy', prompt: 'Ok?' } },
        ]),
        'RUN_INVALID_PARAMS',
      );
      await ctx.store.appendEvents(run.id, [
        { type: 'question-asked', stageId: 'a@1', payload: { questionId: id, kind: 'yes_no', prompt: 'Ok?' } },
      ]);
      await rejection(
        ctx.store.appendEvents(other.id, [
          { type: 'question-asked', stageId: 'a@1', payload: { questionId: id, kind: 'yes_no', prompt: 'Again?' } },
        ]),
        'RUN_INVALID_PARAMS',
      );
      await rejection(
        ctx.store.appendEvents(other.id, [{ type: 'question-answered', payload: { questionId: id, answer: true } }]),
        'QUESTION_NOT_FOUND',
      );
      await rejection(
        ctx.store.appendEvents(run.id, [{ type: 'question-answered', payload: { questionId: id, answer: 'yes' } }]),
        'RUN_INVALID_PARAMS',
      );
      await ctx.store.appendEvents(run.id, [{ type: 'question-answered', payload: { questionId: id, answer: true } }]);
      await rejection(ctx.store.listQuestions(newId()), 'RUN_NOT_FOUND');
    });

    it('withdraws a question when its stage attempt ends, and every pending one when the run ends, in the same append', async () => {
      const run = await ctx.createIn('running');
      const [first, second, third] = [newId(), newId(), newId()];
      const ask = (stageId: string, questionId: string) => ({
        type: 'question-asked',
        stageId,
        payload: { questionId, kind: 'yes_no', prompt: 'Ok?' },
      });
      await ctx.store.appendEvents(run.id, [ask('review@1', first), ask('lint@1', second)]);
      const ended = await ctx.store.appendEvents(run.id, [
        { type: 'stage-finished', stageId: 'review@1', payload: { node: 'review', status: 'cancelled' } },
      ]);
      expect(ended.map((event) => [event.type, event.stageId, event.payload])).toEqual([
        ['stage-finished', 'review@1', { node: 'review', status: 'cancelled' }],
        ['question-withdrawn', 'review@1', { questionId: first, reason: 'stage-ended' }],
      ]);
      expect(await ctx.store.getRun(run.id)).toMatchObject({ pendingQuestionIds: [second], counts: { questionsPending: 1 } });
      expect(await ctx.store.getQuestion(first)).toMatchObject({ status: 'withdrawn', stageId: 'review@1' });
      await rejection(
        ctx.store.appendEvents(run.id, [{ type: 'question-answered', payload: { questionId: first, answer: true } }]),
        'QUESTION_NOT_PENDING',
      );
      await rejection(
        ctx.store.appendEvents(run.id, [
          { type: 'question-withdrawn', stageId: 'lint@1', payload: { questionId: second, reason: 'stage-ended' } },
        ]),
        'RUN_INVALID_PARAMS',
      );

      await ctx.store.appendEvents(run.id, [ask('review@2', third), { type: 'run-status-changed', payload: { to: 'cancelled' } }]);
      expect(await ctx.store.getRun(run.id)).toMatchObject({
        status: 'cancelled',
        pendingQuestionIds: [],
        counts: { questionsPending: 0 },
      });
      expect((await ctx.store.listQuestions(run.id)).map((question) => [question.id, question.status])).toEqual([
        [first, 'withdrawn'],
        [second, 'withdrawn'],
        [third, 'withdrawn'],
      ]);
      expect(await ctx.store.listQuestions(run.id, { pending: true })).toEqual([]);
    });
  });
}
