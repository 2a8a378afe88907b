// The summary is the fold of the events, whatever the batching; events that do not fit are refused.
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { planAppend, type AppendContext } from './plan-append.js';
import { projectRun } from './project-run.js';
import type { QuestionRecord } from './question.js';
import type { NewRunEvent, RunEvent } from './run-event.js';
import { splitRun, type RunRecord } from './run-record.js';

const RUN = '01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC';
const QUESTION = '01JD3Q7Y8ZK3V4W5X6Y7Z8A9BD';
const created: NewRunEvent = {
  type: 'run-created',
  at: 100,
  payload: { workflow: 'build', workflowPath: 'build.toml', cwd: '/w', labels: { team: 'core' } },
};

/** Plans an append and reassembles the whole summary, as a store would. */
function plan(current: RunRecord | undefined, events: NewRunEvent[], questions = new Map<string, QuestionRecord>()) {
  const context: AppendContext = { runId: RUN, now: 500, allowReserved: true, lookupQuestion: (id) => questions.get(id) };
  const before = current === undefined ? undefined : splitRun(current);
  const result = planAppend(before?.state, events, context);
  for (const question of result.questions) questions.set(question.id, question);
  const spec = result.spec ?? before?.spec;
  return { ...result, run: { ...spec, ...result.state } as RunRecord };
}

function code(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return WeftError.is(error) ? error.code : `not a WeftError: ${String(error)}`;
  }
  return undefined;
}

describe('projectRun', () => {
  it("keeps the run's spend from its model turns, by model, reported and estimated apart", () => {
    const turn = (usage: Record<string, number>, model?: string): NewRunEvent => ({
      type: 'model-turn-finished',
      at: 200,
      stageId: 'code@1',
      payload: { turn: 1, text: '', toolCalls: [], finishReason: 'stop', usage, ...(model ? { model } : {}) },
    });
    const { run } = plan(undefined, [
      created,
      turn({ inputTokens: 100, outputTokens: 10, totalTokens: 110, estimatedCostUsd: 0.25 }, 'anthropic:claude-sonnet-4-5'),
      turn({ inputTokens: 50, outputTokens: 5, totalTokens: 55, estimatedCostUsd: 0.5 }, 'anthropic:claude-sonnet-4-5'),
      turn({ inputTokens: 7, outputTokens: 3, totalTokens: 10, costUsd: 1 }),
      turn({ inputTokens: 1, outputTokens: 1, totalTokens: 2, unpricedTurns: 1 }, 'ollama:mystery'),
    ]);
    expect(run.usage).toEqual({
      inputTokens: 158,
      outputTokens: 19,
      totalTokens: 177,
      estimatedCostUsd: 0.75,
      reportedCostUsd: 1,
      unpricedTurns: 1,
    });
    expect(run.usageByModel).toEqual({
      'anthropic:claude-sonnet-4-5': { inputTokens: 150, outputTokens: 15, totalTokens: 165, estimatedCostUsd: 0.75 },
      unknown: { inputTokens: 7, outputTokens: 3, totalTokens: 10, reportedCostUsd: 1 },
      'ollama:mystery': { inputTokens: 1, outputTokens: 1, totalTokens: 2, unpricedTurns: 1 },
    });
  });

  it('counts the failed stages a run went on past, not those retried or that ended it', () => {
    const finished = (stageId: string, status: string, next: string[], retrying = false): NewRunEvent => ({
      type: 'stage-finished',
      at: 200,
      stageId,
      payload: {
        node: stageId.replace(/@.*/, ''),
        status,
        durationMs: 1,
        output: null,
        exitCode: 1,
        answer: null,
        error: 'x',
        next,
        retrying,
        usage: null,
        errorCode: null,
      },
    });
    const { run } = plan(undefined, [
      created,
      finished('lint@1', 'failed', ['test']),
      finished('flaky@1', 'failed', [], true),
      finished('flaky@2', 'succeeded', ['done']),
      finished('probe@1', 'failed', ['report']),
      finished('last@1', 'failed', []),
    ]);
    expect(run.counts.failedOptionalStages).toBe(2);
    expect(plan(undefined, [created]).run.counts.failedOptionalStages).toBeUndefined();
  });

  it('equals the fold of the stored events, whatever the batching', () => {
    const questions = new Map<string, QuestionRecord>();
    const events: NewRunEvent[] = [
      created,
      { type: 'run-status-changed', at: 110, payload: { to: 'queued' } },
      { type: 'run-status-changed', at: 120, payload: { to: 'starting' } },
      { type: 'run-status-changed', at: 130, payload: { to: 'running' } },
      { type: 'stage-started', at: 140, stageId: 'ask@1', payload: {} },
      {
        type: 'question-asked',
        at: 150,
        stageId: 'ask@1',
        payload: { questionId: QUESTION, kind: 'multi_select', prompt: 'Which?', options: ['x', 'y', 'z'] },
      },
      { type: 'run-status-changed', at: 160, payload: { to: 'blocked' } },
      { type: 'question-answered', at: 170, payload: { questionId: QUESTION, answer: ['z', 'x'] } },
      { type: 'run-status-changed', at: 180, payload: { to: 'failed', reason: 'tests failed' } },
    ];
    const whole = plan(undefined, events, questions);
    let stepwise: RunRecord | undefined;
    const stepQuestions = new Map<string, QuestionRecord>();
    for (const event of events) stepwise = plan(stepwise, [event], stepQuestions).run;
    expect([...stepQuestions.values()]).toEqual([...questions.values()]);
    expect(stepwise).toEqual(whole.run);
    expect(whole.events.reduce<RunRecord | undefined>(projectRun, undefined)).toEqual(whole.run);
    expect(whole.run).toEqual({
      id: RUN,
      workflow: 'build',
      workflowPath: 'build.toml',
      goal: '',
      inputs: {},
      labels: { team: 'core' },
      status: 'failed',
      reason: 'tests failed',
      archived: false,
      autoApprove: false,
      dryRun: false,
      cwd: '/w',
      attempt: 1,
      currentStageId: 'ask@1',
      createdAt: 100,
      updatedAt: 180,
      startedAt: 130,
      finishedAt: 180,
      counts: { events: 9, stages: 1, toolCalls: 0, questionsPending: 0 },
      pendingQuestionIds: [],
    });
    expect(whole.questions).toEqual([
      {
        id: QUESTION,
        runId: RUN,
        stageId: 'ask@1',
        kind: 'multi_select',
        prompt: 'Which?',
        options: ['x', 'y', 'z'],
        status: 'answered',
        answer: ['z', 'x'],
        askedAt: 150,
        answeredAt: 170,
      },
    ]);
    expect(whole.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(whole.events[3]?.payload).toEqual({ to: 'running', from: 'starting' });
  });

  it('keeps the first start time and resets the finish time on a retry', () => {
    let run = plan(undefined, [
      created,
      { type: 'run-status-changed', at: 110, payload: { to: 'queued' } },
      { type: 'run-status-changed', at: 120, payload: { to: 'starting' } },
      { type: 'run-status-changed', at: 130, payload: { to: 'running' } },
      { type: 'run-status-changed', at: 140, payload: { to: 'cancelled' } },
    ]).run;
    run = plan(run, [
      { type: 'run-status-changed', at: 200, payload: { to: 'queued' } },
      { type: 'run-status-changed', at: 210, payload: { to: 'starting' } },
      { type: 'run-status-changed', at: 220, payload: { to: 'running' } },
    ]).run;
    expect([run.attempt, run.startedAt, run.finishedAt, run.status]).toEqual([2, 130, undefined, 'running']);
  });

  it('refuses events that do not fit the run', () => {
    const run = plan(undefined, [created]).run;
    expect(code(() => plan(undefined, [{ type: 'stage-started', stageId: 'a@1', payload: {} }]))).toBe('INTERNAL');
    expect(code(() => plan(run, [created]))).toBe('RUN_INVALID_PARAMS');
    expect(code(() => plan(run, [{ type: 'run-archived', payload: {} }]))).toBe('RUN_NOT_TERMINAL');
    expect(code(() => plan(run, [{ type: 'stage-started', payload: {} }]))).toBe('RUN_INVALID_PARAMS');
    expect(code(() => plan(run, [{ type: 'run-status-changed', payload: { to: 'nowhere' } }]))).toBe('RUN_INVALID_PARAMS');
    expect(code(() => plan(run, [{ type: 'run-status-changed', payload: { to: 'running' } }]))).toBe('RUN_INVALID_TRANSITION');
    expect(
      code(() => planAppend(run, [{ type: 'run-archived', payload: {} }], { runId: RUN, now: 1, lookupQuestion: () => undefined })),
    ).toBe('RUN_INVALID_PARAMS');
    const stale: RunEvent = { runId: RUN, seq: 5, at: 1, type: 'artifact-saved', payload: {} };
    expect(code(() => projectRun(run, stale))).toBe('INTERNAL');
  });

  it('refuses oversized and non-JSON payloads', () => {
    const run = plan(undefined, [created]).run;
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(code(() => plan(run, [{ type: 'artifact-saved', payload: cyclic as never }]))).toBe('RUN_INVALID_PARAMS');
    expect(code(() => plan(run, [{ type: 'artifact-saved', payload: { text: 'x'.repeat(1024 * 1024 + 1) } }]))).toBe('RUN_INVALID_PARAMS');
    expect(plan(run, [{ type: 'artifact-saved', payload: { gone: undefined, nan: Number.NaN } as never }]).events[0]?.payload).toEqual({
      nan: null,
    });
  });
});

describe('pair sessions in the projection', () => {
  const SESSION = '01JD3Q7Y8ZK3V4W5X6Y7Z8A9BE';
  const OTHER = '01JD3Q7Y8ZK3V4W5X6Y7Z8A9BF';
  const running: NewRunEvent[] = [
    created,
    { type: 'run-status-changed', at: 110, payload: { to: 'queued' } },
    { type: 'run-status-changed', at: 120, payload: { to: 'starting' } },
    { type: 'run-status-changed', at: 130, payload: { to: 'running' } },
    { type: 'stage-started', at: 140, stageId: 'work@1', payload: { node: 'work', kind: 'agent' } },
  ];
  const started = (sessionId = SESSION, stageId = 'work@1'): NewRunEvent => ({
    type: 'pair-started',
    at: 150,
    stageId,
    payload: { sessionId, stageId, by: 'cli (ana)' },
  });

  it('shows the open session until pair-ended, and ignores ending one that is not open', () => {
    const open = plan(undefined, [...running, started()]).run;
    expect(open.pairSession).toEqual({ sessionId: SESSION, stageId: 'work@1', by: 'cli (ana)', startedAt: 150, startedSeq: 6 });
    expect(plan(open, [{ type: 'pair-ended', payload: { sessionId: OTHER, reason: 'ended' } }]).run.pairSession).toEqual(open.pairSession);
    expect(plan(open, [{ type: 'pair-ended', payload: { sessionId: SESSION, reason: 'ended' } }]).run).not.toHaveProperty('pairSession');
  });

  it('closes the session when its stage finishes or the run ends, but not when another stage finishes', () => {
    const open = plan(undefined, [
      ...running,
      { type: 'stage-started', at: 141, stageId: 'other@1', payload: { node: 'other', kind: 'command' } },
      started(),
    ]).run;
    expect(plan(open, [{ type: 'stage-finished', stageId: 'other@1', payload: { status: 'succeeded' } }]).run.pairSession?.sessionId).toBe(
      SESSION,
    );
    expect(plan(open, [{ type: 'stage-finished', stageId: 'work@1', payload: { status: 'succeeded' } }]).run).not.toHaveProperty(
      'pairSession',
    );
    expect(plan(open, [{ type: 'run-status-changed', payload: { to: 'cancelled' } }]).run).not.toHaveProperty('pairSession');
  });

  it('refuses a second session, a session on an ended run, and malformed payloads', () => {
    const open = plan(undefined, [...running, started()]).run;
    expect(code(() => plan(open, [started(OTHER)]))).toBe('PAIR_SESSION_OPEN');
    const ended = plan(undefined, [...running, { type: 'run-status-changed', payload: { to: 'failed' } }]).run;
    expect(code(() => plan(ended, [started()]))).toBe('NO_ACTIVE_AGENT_STAGE');
    const fresh = plan(undefined, running).run;
    expect(code(() => plan(fresh, [{ type: 'pair-started', payload: { sessionId: 'nope', stageId: 'work@1', by: 'x' } }]))).toBe(
      'INVALID_ID',
    );
    expect(code(() => plan(fresh, [{ type: 'pair-started', payload: { sessionId: SESSION, stageId: 'work', by: 'x' } }]))).toBe(
      'RUN_INVALID_PARAMS',
    );
    expect(
      code(() => plan(fresh, [{ type: 'pair-started', stageId: 'other@1', payload: { sessionId: SESSION, stageId: 'work@1', by: 'x' } }])),
    ).toBe('RUN_INVALID_PARAMS');
    expect(code(() => plan(open, [{ type: 'pair-ended', payload: { sessionId: SESSION, reason: 'bored' } }]))).toBe('RUN_INVALID_PARAMS');
  });
});
