/**
 * What ends a stage attempt in the log: its last step's events (`finalEvents`) and its
 * `stage-finished`, appended together in one commit by the run executor.
 */
import { ENGINE_EVENT, type StageFinishedPayload, type StageStatus } from '../model/event-types.js';
import type { NewRunEvent } from '../model/run-event.js';
import type { InflightStage } from './execution-state.js';
import type { StageResult } from './stage-context.js';

/** How a stage attempt ended, for the run executor's `#recordFinish`. */
export interface StageFinish {
  result: StageResult;
  status: StageStatus;
  /** The nodes the run goes on to (none unless it succeeded and routed). */
  next?: string[];
  /** Another attempt follows: the stage stays in flight. */
  retrying?: boolean;
  durationMs?: number;
  /** Applied to the state once the finish is written. */
  apply?: () => void;
  /** Why the run cannot go on from here (no edge matched), when the stage has no error of its own. */
  runError?: string | null;
}

/** The events that end the attempt, and the error its `stage-finished` names. */
export function stageFinishedEvents(stage: InflightStage, finish: StageFinish): { events: NewRunEvent[]; error: string | null } {
  const { result, status, next = [], retrying = false, durationMs = 0, runError } = finish;
  const payload: StageFinishedPayload = {
    node: stage.node,
    status,
    durationMs: Math.round(durationMs),
    output: result.output ?? null,
    exitCode: result.exitCode ?? null,
    answer: result.answer ?? null,
    error: result.error ?? runError ?? null,
    next,
    retrying,
    usage: result.usage ?? null,
    errorCode: result.errorCode ?? null,
  };
  const final = (result.finalEvents ?? []).map((event) => ({ ...event, stageId: event.stageId ?? stage.stageId }));
  return { events: [...final, { type: ENGINE_EVENT.stageFinished, stageId: stage.stageId, payload }], error: payload.error };
}
