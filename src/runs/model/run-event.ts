/**
 * Events: the append-only log of a run. Types are noun-verb kebab strings; the set is open
 * (model turns, pair sessions, MCP servers…), and the ones the projection reads are named
 * here with their payloads.
 */
import { RUN_EVENT } from './event-types.js';
import type { JsonObject, JsonValue } from './json.js';
import type { QuestionKind } from './question.js';
import type { RunStatus } from './run-status.js';

export interface RunEvent {
  runId: string;
  /** 1-based, per run, no gaps. */
  seq: number;
  /** Epoch ms. */
  at: number;
  type: string;
  stageId?: string;
  payload: JsonObject;
}

/** An event as a caller appends it; the store assigns `runId`, `seq` and (by default) `at`. */
export interface NewRunEvent {
  type: string;
  stageId?: string;
  payload: JsonObject;
  at?: number;
}

/** noun-verb, lower-case kebab: `stage-started`, `mcp-server-connected`. */
export const EVENT_TYPE = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$/;
export const MAX_EVENT_TYPE_LENGTH = 64;

/** `<node>@<attempt>`, e.g. `implement@1`; safe to use in a file name. */
export const STAGE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}@[1-9][0-9]{0,8}$/;

export interface RunCreatedPayload {
  workflow: string;
  workflowPath: string;
  goal: string;
  inputs: JsonObject;
  labels: Record<string, string>;
  parentId?: string;
  autoApprove: boolean;
  dryRun: boolean;
  model?: string;
  cwd: string;
  /** See {@link RunSpec.envFingerprint}. */
  envFingerprint?: string;
}

/** `from` is optional on input: when given it must equal the current status (compare-and-set). */
export interface RunStatusChangedPayload {
  from?: RunStatus;
  to: RunStatus;
  reason?: string;
}

export interface RunParentChangedPayload {
  parentId: string | null;
}

export interface QuestionAskedPayload {
  questionId: string;
  kind: QuestionKind;
  prompt: string;
  options?: string[];
  /** A JSON Schema the answer must also satisfy (MCP elicitation forms). */
  schema?: JsonObject;
  /** Extra answers (strings) accepted besides what the kind takes, e.g. `decline`, `cancel`. */
  alternatives?: string[];
}

export interface QuestionAnsweredPayload {
  questionId: string;
  answer: JsonValue;
}

/** A person or client opened a pair session with a running agent stage (the event's `stageId` is that stage too). */
export interface PairStartedPayload {
  /** ULID. */
  sessionId: string;
  stageId: string;
  /** Who opened it, e.g. `cli (ana)` or `mcp`. */
  by: string;
}

/**
 * Why a pair session ended: `ended` on request; `stage-finished` when its stage ended
 * (written by the agent runner as the stage ends; named after the event that ended it). The projection also closes a session
 * when its stage finishes or the run ends without this event (a runner that died).
 */
export const PAIR_END_REASON = { ended: 'ended', stageFinished: RUN_EVENT.stageFinished } as const;
export const PAIR_END_REASONS = [PAIR_END_REASON.ended, PAIR_END_REASON.stageFinished] as const;
export type PairEndReason = (typeof PAIR_END_REASONS)[number];

export interface PairEndedPayload {
  sessionId: string;
  reason: PairEndReason;
}
