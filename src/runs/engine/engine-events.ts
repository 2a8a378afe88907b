/**
 * The payloads of the events the engine writes beyond the store's own (their types are in
 * `model/event-types.ts`). Replaying them (see `execution-state.ts`) tells a runner
 * exactly where a run stands.
 */
import type { JsonObject, JsonValue } from '../model/json.js';

/** How a stage ended. `abandoned` and `interrupted` stages are run again as a new attempt. */
export type StageStatus = 'succeeded' | 'failed' | 'cancelled' | 'abandoned' | 'interrupted';

export interface StageStartedPayload extends JsonObject {
  node: string;
  kind: string;
  attempt: number;
  /** The node whose edge led here. */
  from: string | null;
  /** Tokens this stage consumed: 1, or the number of branches a join waited for. */
  consumed: number;
}

/**
 * A `command` stage's process group, recorded before the command runs: a runner that takes
 * the run over ends this group before it runs the stage again.
 */
export interface StageProcessStartedPayload extends JsonObject {
  /** The group's id (its leader's pid). */
  pgid: number;
  host: string;
  /** The leader's start time, so a reused pid is not taken for the group. */
  start: string;
}

export interface StageFinishedPayload extends JsonObject {
  node: string;
  status: StageStatus;
  durationMs: number;
  output: JsonValue;
  exitCode: number | null;
  answer: JsonValue;
  error: string | null;
  /** Nodes the run goes on to (the chosen edge, or a parallel node's branches). */
  next: string[];
  /** True when the retry policy runs the node again. */
  retrying: boolean;
}
