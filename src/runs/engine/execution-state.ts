/**
 * Where a run stands, rebuilt from its event log alone: the tokens waiting to run (a
 * token is "this node is next"; a parallel node makes several), the stages in flight,
 * the latest outcome of every node, and the stages that failed the run. A runner that
 * picks up a run after a crash calls `replay` and carries on from there.
 */
import {
  ENGINE_EVENT,
  RUN_EVENT,
  type RunRewoundPayload,
  type StageFinishedPayload,
  type StageProcessStartedPayload,
  type StageStartedPayload,
} from '../model/event-types.js';
import type { JsonValue } from '../model/json.js';
import { type RunEvent } from '../model/run-event.js';
import type { StageOutcome } from '../workflow/index.js';

export interface Token {
  node: string;
  /** The node whose edge led here; its outcome is `last` in the new stage's conditions. */
  from: string | null;
}

export interface InflightStage {
  stageId: string;
  node: string;
  attempt: number;
  from: string | null;
  consumed: number;
  /** The attempt a retry series began with; retries count from here. */
  firstAttempt: number;
  /** The process group a `command` stage started (only known from the log, after a crash). */
  process?: StageProcessStartedPayload;
}

export interface ExecutionState {
  pending: Token[];
  inflight: Map<string, InflightStage>;
  /** Highest attempt number used per node. */
  attempts: Map<string, number>;
  /** Per node, how many attempts in a row were abandoned (their runner lost): bounds take-overs. */
  abandoned: Map<string, number>;
  outcomes: Map<string, StageOutcome>;
  /** Stages that ended badly with nowhere to go; a retry puts them back in `pending`. */
  failed: (Token & { stageId: string; error: string | null })[];
  /** Child runs created per stage, so a resumed stage attaches instead of creating again. */
  children: Map<string, string>;
  /** Questions asked per stage (answered or not), for the same reason. */
  questions: Map<string, { questionId: string; answer?: JsonValue }>;
  lastSeq: number;
  /** Seq of the event that began the current attempt (0, or the retry's `→ queued`). */
  attemptStartSeq: number;
}

export function outcomeOf(payload: StageFinishedPayload): StageOutcome {
  return {
    status: payload.status,
    output: payload.output ?? undefined,
    exit_code: payload.exitCode,
    answer: payload.answer ?? undefined,
  };
}

function takeTokens(pending: Token[], node: string, count: number): void {
  for (let taken = 0; taken < count; taken += 1) {
    const index = pending.findIndex((token) => token.node === node);
    if (index < 0) return;
    pending.splice(index, 1);
  }
}

/** Folds a run's events (in seq order) into its execution state. */
export function replay(events: readonly RunEvent[], startNode: string): ExecutionState {
  const state: ExecutionState = {
    pending: [],
    inflight: new Map(),
    attempts: new Map(),
    abandoned: new Map(),
    outcomes: new Map(),
    failed: [],
    children: new Map(),
    questions: new Map(),
    lastSeq: 0,
    attemptStartSeq: 0,
  };
  let begun = false;
  for (const event of events) {
    state.lastSeq = event.seq;
    switch (event.type) {
      case ENGINE_EVENT.stageStarted: {
        const payload = event.payload as StageStartedPayload;
        if (!begun) {
          begun = true;
          state.pending.push({ node: startNode, from: null });
        }
        takeTokens(state.pending, payload.node, payload.consumed);
        state.inflight.set(event.stageId!, {
          stageId: event.stageId!,
          node: payload.node,
          attempt: payload.attempt,
          firstAttempt: payload.attempt,
          from: payload.from,
          consumed: payload.consumed,
        });
        state.attempts.set(payload.node, Math.max(state.attempts.get(payload.node) ?? 0, payload.attempt));
        break;
      }
      case ENGINE_EVENT.stageFinished: {
        const payload = event.payload as StageFinishedPayload;
        const stage = state.inflight.get(event.stageId!);
        state.inflight.delete(event.stageId!);
        const from = stage?.from ?? null;
        if (payload.status === 'abandoned') state.abandoned.set(payload.node, (state.abandoned.get(payload.node) ?? 0) + 1);
        else if (!payload.retrying) state.abandoned.delete(payload.node);
        if (payload.status === 'abandoned' || payload.status === 'interrupted' || payload.retrying) {
          state.pending.push({ node: payload.node, from });
          break;
        }
        state.outcomes.set(payload.node, outcomeOf(payload));
        for (const next of payload.next) state.pending.push({ node: next, from: payload.node });
        if (payload.next.length === 0 && payload.status !== 'succeeded') {
          state.failed.push({ node: payload.node, from, stageId: event.stageId!, error: payload.error });
        }
        break;
      }
      case ENGINE_EVENT.stageProcessStarted: {
        const stage = state.inflight.get(event.stageId!);
        if (stage) stage.process = event.payload as StageProcessStartedPayload;
        break;
      }
      case ENGINE_EVENT.childRunCreated:
        state.children.set(event.stageId!, String(event.payload.childId));
        break;
      case RUN_EVENT.questionAsked:
        if (event.stageId) state.questions.set(event.stageId, { questionId: String(event.payload.questionId) });
        break;
      case RUN_EVENT.questionAnswered:
        for (const entry of state.questions.values()) {
          if (entry.questionId === event.payload.questionId) entry.answer = event.payload.answer ?? null;
        }
        break;
      case RUN_EVENT.questionWithdrawn:
        // A stage resumed in place after its run ended (a cancel with no runner) asks anew.
        if (event.stageId && state.questions.get(event.stageId)?.questionId === event.payload.questionId)
          state.questions.delete(event.stageId);
        break;
      case ENGINE_EVENT.runRewound: {
        // The run goes back to where it stood when the stage finished; attempt numbers keep counting up.
        const payload = event.payload as RunRewoundPayload;
        const back = replay(
          events.filter((earlier) => earlier.seq <= payload.toSeq),
          startNode,
        );
        state.pending = back.pending;
        state.inflight = back.inflight;
        state.outcomes = back.outcomes;
        state.failed = back.failed;
        state.attemptStartSeq = event.seq;
        begun = true;
        break;
      }
      case RUN_EVENT.runStatusChanged:
        // A retry (failed|cancelled → queued) puts the stages that stopped the run back in line.
        if (event.payload.to === 'queued' && (event.payload.from === 'failed' || event.payload.from === 'cancelled')) {
          for (const failed of state.failed) state.pending.push({ node: failed.node, from: failed.from });
          state.failed = [];
          state.attemptStartSeq = event.seq;
        }
        break;
      default:
        break;
    }
  }
  if (!begun) state.pending.push({ node: startNode, from: null });
  return state;
}

export function stageId(node: string, attempt: number): string {
  return `${node}@${attempt}`;
}
