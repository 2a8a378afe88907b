/**
 * The run summary as a projection of its events: pure reducers that the store applies in
 * the same transaction as the append, so the stored summary always equals the fold of the
 * log. `run-created` gives the spec and the first state; every later event changes only
 * the state.
 */
import { AGENT_EVENT, RUN_EVENT } from './event-types.js';
import { WeftError } from '../../core/errors.js';
import {
  readPairEnded,
  readPairStarted,
  readParentChanged,
  readQuestionAnswered,
  readQuestionAsked,
  readQuestionWithdrawn,
  readRunCreated,
  readStatusChanged,
} from './event-payloads.js';
import { type RunEvent } from './run-event.js';
import { splitRun, type PairSession, type RunRecord, type RunState } from './run-record.js';
import { assertTransition, isTerminal, RUN_TRANSITIONS } from './run-status.js';
import { withPayloadUsage } from './token-usage.js';

/**
 * Folds one event into a summary (`undefined` before `run-created`). Throws on an event
 * that does not fit: an illegal transition, archiving a live run, answering a question
 * that is not pending, an event out of sequence.
 *
 * @example events.reduce<RunRecord | undefined>(projectRun, undefined)
 */
export function projectRun(summary: RunRecord | undefined, event: RunEvent): RunRecord {
  if (summary === undefined) return createdRun(event);
  const { spec, state } = splitRun(summary);
  return { ...spec, ...projectState(state, event) };
}

/** The summary a `run-created` event (seq 1) describes. */
export function createdRun(event: RunEvent): RunRecord {
  if (event.type !== RUN_EVENT.runCreated || event.seq !== 1) {
    throw new WeftError(
      'INTERNAL',
      `The first event of run ${event.runId} must be run-created with seq 1, got ${event.type} #${event.seq}.`,
    );
  }
  const { parentId, ...payload } = readRunCreated(event.payload);
  return {
    id: event.runId,
    ...payload,
    createdAt: event.at,
    ...(parentId === undefined ? {} : { parentId }),
    status: 'submitted',
    archived: false,
    attempt: 1,
    updatedAt: event.at,
    counts: { events: 1, stages: 0, toolCalls: 0, questionsPending: 0 },
    pendingQuestionIds: [],
  };
}

/** Folds one event after `run-created` into the projected state. */
export function projectState(state: RunState, event: RunEvent): RunState {
  const id = event.runId;
  if (event.seq !== state.counts.events + 1) {
    throw new WeftError('INTERNAL', `Event ${event.seq} of run ${id} is out of sequence: the summary has ${state.counts.events} events.`);
  }
  const next: RunState = {
    ...state,
    counts: { ...state.counts, events: event.seq },
    pendingQuestionIds: [...state.pendingQuestionIds],
    updatedAt: Math.max(state.updatedAt, event.at),
  };
  switch (event.type) {
    case RUN_EVENT.runCreated:
      throw new WeftError('RUN_INVALID_PARAMS', `Run ${id} already has a run-created event.`);
    case RUN_EVENT.runStatusChanged: {
      const changed = changeStatus(id, next, event);
      // A run that ends (even one whose runner died mid-stage) has no stage left to pair with.
      return isTerminal(changed.status) ? withoutPairSession(changed) : changed;
    }
    case RUN_EVENT.runArchived:
      if (!isTerminal(next.status)) {
        throw new WeftError('RUN_NOT_TERMINAL', `Run ${id} is ${next.status}; only a succeeded, failed or cancelled run can be archived.`, {
          data: { runId: id, status: next.status },
        });
      }
      return { ...next, archived: true };
    case RUN_EVENT.runUnarchived:
      return { ...next, archived: false };
    case RUN_EVENT.runParentChanged: {
      const { parentId } = readParentChanged(event.payload);
      const { parentId: _old, ...withoutParent } = next;
      return parentId === null ? withoutParent : { ...withoutParent, parentId };
    }
    case RUN_EVENT.stageStarted:
      if (event.stageId === undefined)
        throw new WeftError('RUN_INVALID_PARAMS', `Invalid stage-started event: set 'stageId' (e.g. 'implement@1').`);
      return { ...next, currentStageId: event.stageId, counts: { ...next.counts, stages: next.counts.stages + 1 } };
    case RUN_EVENT.stageFinished: {
      const passed = passedFailure(event)
        ? { ...next, counts: { ...next.counts, failedOptionalStages: (next.counts.failedOptionalStages ?? 0) + 1 } }
        : next;
      return passed.pairSession?.stageId === event.stageId ? withoutPairSession(passed) : passed;
    }
    case RUN_EVENT.pairStarted:
      return startPairSession(id, next, event);
    case RUN_EVENT.pairEnded: {
      // Ending a session that already closed (its stage finished first) changes nothing.
      const { sessionId } = readPairEnded(event.payload);
      return next.pairSession?.sessionId === sessionId ? withoutPairSession(next) : next;
    }
    case AGENT_EVENT.modelTurnFinished: {
      // The run's spend is read from its log, so a runner that takes the run over knows it.
      const usage = withPayloadUsage(next.usage, event.payload);
      if (usage === undefined) return next;
      const model = typeof event.payload.model === 'string' ? event.payload.model : 'unknown';
      const byModel = withPayloadUsage(next.usageByModel?.[model], event.payload)!;
      return { ...next, usage, usageByModel: { ...next.usageByModel, [model]: byModel } };
    }
    case RUN_EVENT.toolCallStarted:
      return { ...next, counts: { ...next.counts, toolCalls: next.counts.toolCalls + 1 } };
    case RUN_EVENT.questionAsked: {
      const { questionId } = readQuestionAsked(event.payload);
      next.pendingQuestionIds.push(questionId);
      return { ...next, counts: { ...next.counts, questionsPending: next.pendingQuestionIds.length } };
    }
    case RUN_EVENT.questionAnswered:
    case RUN_EVENT.questionWithdrawn: {
      const { questionId } =
        event.type === RUN_EVENT.questionAnswered ? readQuestionAnswered(event.payload) : readQuestionWithdrawn(event.payload);
      const index = next.pendingQuestionIds.indexOf(questionId);
      if (index < 0)
        throw new WeftError('QUESTION_NOT_PENDING', `Question ${questionId} is not pending in run ${id}.`, {
          data: { runId: id, questionId },
        });
      next.pendingQuestionIds.splice(index, 1);
      return { ...next, counts: { ...next.counts, questionsPending: next.pendingQuestionIds.length } };
    }
    default:
      return next;
  }
}

function changeStatus(id: string, run: RunState, event: RunEvent): RunState {
  const { from, to, reason } = readStatusChanged(event.payload);
  if (from !== undefined && from !== run.status) {
    throw new WeftError(
      'RUN_INVALID_TRANSITION',
      `Run ${id} is ${run.status}, not ${from}, so it was not changed to ${to}; from ${run.status} it can become: ${RUN_TRANSITIONS[run.status].join(', ') || 'nothing (final)'}.`,
      {
        data: { runId: id, from: run.status, expected: from, to, allowed: [...RUN_TRANSITIONS[run.status]] },
      },
    );
  }
  assertTransition(run.status, to, id);
  const { reason: _reason, ...rest } = run;
  const next: RunState = { ...rest, status: to, ...(reason === undefined ? {} : { reason }) };
  if (to === 'running' && next.startedAt === undefined) next.startedAt = event.at;
  if (isTerminal(to)) next.finishedAt = event.at;
  if (isTerminal(run.status)) {
    const { finishedAt: _finished, ...retried } = next;
    return { ...retried, attempt: run.attempt + 1, archived: false };
  }
  return next;
}

/** A stage that failed for good (no retry coming) whose failure the workflow routes on: the run goes past it. */
function passedFailure(event: RunEvent): boolean {
  const { status, retrying, next } = event.payload;
  return status === 'failed' && retrying !== true && Array.isArray(next) && next.length > 0;
}

function withoutPairSession(state: RunState): RunState {
  const { pairSession: _closed, ...rest } = state;
  return rest;
}

/** One session per run at a time: checked here, in the append's transaction, so of two starts only one wins. */
function startPairSession(id: string, run: RunState, event: RunEvent): RunState {
  const { sessionId, stageId, by } = readPairStarted(event.payload);
  if (event.stageId !== undefined && event.stageId !== stageId) {
    throw new WeftError(
      'RUN_INVALID_PARAMS',
      `Invalid pair-started event: its stageId ${event.stageId} differs from the payload's ${stageId}.`,
    );
  }
  const refused = pairStartRefusal(id, run.status, run.pairSession);
  if (refused) throw refused;
  return { ...run, pairSession: { sessionId, stageId, by, startedAt: event.at, startedSeq: event.seq } };
}

/** Why a run in `status` with the session `open` cannot start a pair session, or `undefined` when it can. */
export function pairStartRefusal(runId: string, status: RunState['status'], open: PairSession | undefined): WeftError | undefined {
  if (isTerminal(status))
    return new WeftError('NO_ACTIVE_AGENT_STAGE', `Run ${runId} is ${status}; it has no agent stage left to pair with.`, {
      data: { runId, status },
    });
  if (open === undefined) return undefined;
  return new WeftError(
    'PAIR_SESSION_OPEN',
    `Run ${runId} already has pair session ${open.sessionId} on stage ${open.stageId} (started by ${open.by}); send messages to it, or end it before starting another.`,
    {
      data: { runId, sessionId: open.sessionId, stageId: open.stageId },
    },
  );
}
