/**
 * Payloads of the engine's stage and request events: a stage's start, process, output and
 * end, sandbox refusals, the run's trace, and what is asked of a run (cancel, message,
 * signal, child) — `ENGINE_EVENT` in `../event-types.ts`.
 */
import type { JsonObject, JsonValue } from '../json.js';
import type { TokenUsagePayload } from './agent-payloads.js';

/**
 * Something a sandboxed run's process tried and the sandbox refused (`[run.sandbox]`): a
 * write outside `allow_write`, a read under `deny_read` (both read from the process's
 * stderr) or a connection `network.allow` does not name (from weft's proxy).
 */
export type SandboxViolationPayload = {
  kind: 'write' | 'read' | 'network';
  /** The path refused (write, read). */
  path?: string;
  /** The host and port refused (network). */
  host?: string;
  port?: number;
  /** The setting that would allow it. */
  setting: 'allow_write' | 'deny_read' | 'network.allow';
  /** The refusal, said for people (and the agent). */
  message: string;
};

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
export type StageProcessStartedPayload = {
  /** The group's id (its leader's pid). */
  pgid: number;
  host: string;
  /** The leader's start time, so a reused pid is not taken for the group. */
  start: string;
  /** CLI stages: the `WEFT_STAGE_PROCESS` value its processes carry, for those that leave the group (see `core/marked-processes.ts`). */
  marker?: string;
};

/**
 * The OpenTelemetry trace a run's spans belong to, written by the first traced attempt: a
 * run resumed by another runner (or after an interrupt) continues the same trace.
 */
export interface RunTraceStartedPayload extends JsonObject {
  /** W3C `traceparent` of the first traced attempt's span. */
  traceparent: string;
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
  /** Model tokens of an agent or prompt stage, summed over its turns; null for other kinds (and in logs older than this field). */
  usage: TokenUsagePayload | null;
  /**
   * The `WeftError` code when the stage failed on a configuration mistake (`MODEL_CONFIG_INVALID`,
   * `MODEL_KEY_MISSING`): `weft run` exits 2 when the run fails on it. Null otherwise.
   */
  errorCode: string | null;
}

export type ChildRunCreatedPayload = {
  childId: string;
  workflow: string;
};

/** Asks the run's runner to stop the run. */
export type CancelRequestedPayload = {
  reason?: string;
};

/** A message for the run's agent stage; `sessionId` when it came through a pair session. */
export type MessageSentPayload = {
  text: string;
  sessionId?: string;
};

/** What a `wait` node waits for: a signal by name, with any JSON. */
export type SignalSentPayload = {
  name: string;
  data: JsonValue;
};

/** Interrupt and resume requests carry nothing but their type. */
export type EmptyPayload = Record<string, never>;

/**
 * Output of a stage while it runs, for those following it live: a command's stdout and
 * stderr in pieces (`stream` + `text`, batched, up to a cap per stage), or a CLI agent's
 * progress line (`progress`). The stage's whole output is in its `stage-finished`.
 */
export type StageOutputPayload = { stream: 'stdout' | 'stderr'; text: string } | { progress: string };
