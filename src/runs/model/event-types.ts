/**
 * Every event type weft writes to a run's log, in one catalogue: the store's and the
 * projection's (`RUN_EVENT`), the engine's (`ENGINE_EVENT`), an agent stage's transcript
 * (`AGENT_EVENT`) and MCP sampling (`SAMPLING_EVENT`). The log is the contract between the
 * layers that write and read it, so no other module spells an event type out
 * (`event-types.test.ts` checks). Types are noun-verb kebab strings.
 */
import type { JsonObject, JsonValue } from './json.js';
import type { QuestionKind } from './question.js';
import type { RunStatus } from './run-status.js';
import type { RunOrigin, RunWorkspace } from './run-workspace.js';
import type { ConcurrencySlot } from './run-concurrency.js';

export const RUN_EVENT = {
  runCreated: 'run-created',
  runStatusChanged: 'run-status-changed',
  runArchived: 'run-archived',
  runUnarchived: 'run-unarchived',
  runParentChanged: 'run-parent-changed',
  stageStarted: 'stage-started',
  stageFinished: 'stage-finished',
  toolCallStarted: 'tool-call-started',
  toolCallFinished: 'tool-call-finished',
  questionAsked: 'question-asked',
  questionAnswered: 'question-answered',
  questionWithdrawn: 'question-withdrawn',
  artifactSaved: 'artifact-saved',
  pairStarted: 'pair-started',
  pairEnded: 'pair-ended',
} as const;

/** Written only by the store's own methods (createRun, setArchived, setParent), never by appendEvents. */
export const RESERVED_EVENT_TYPES: ReadonlySet<string> = new Set([RUN_EVENT.runCreated, RUN_EVENT.runArchived, RUN_EVENT.runUnarchived, RUN_EVENT.runParentChanged, RUN_EVENT.questionWithdrawn]);

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
  /** A keyed hash of the creator's environment (never the values); see `RunSpec.envFingerprint`. */
  envFingerprint?: string;
  /** The budget given when the run was created (`--budget`, `budget`); its fields win over the workflow's `[run.budget]`. */
  budget?: RunBudgetPayload;
  /** Claim order, higher first (-100 … 100); absent is 0. */
  priority?: number;
  /** The resolved workspace (see `RunSpec.workspace`). */
  workspace?: RunWorkspace;
  /** See `RunSpec.origin`. */
  origin?: RunOrigin;
  /** See `RunSpec.concurrency`. */
  concurrency?: ConcurrencySlot[];
}

/** A run's own budget: limits and what happens at 100 %. */
export type RunBudgetPayload = BudgetLimitsPayload & { onExceeded?: 'pause' | 'fail' };

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

/**
 * A question ended unanswered because its stage attempt ended (`stage-ended`) or its run did
 * (`run-ended`). The store writes it in the same append as the event that ended them, so no
 * dead attempt's question stays pending; the event's `stageId` is the question's stage.
 */
export interface QuestionWithdrawnPayload {
  questionId: string;
  reason: 'stage-ended' | 'run-ended';
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

/** The events the engine writes beyond the store's own; replaying them tells a runner where a run stands. */
export const ENGINE_EVENT = {
  stageStarted: RUN_EVENT.stageStarted,
  stageFinished: RUN_EVENT.stageFinished,
  childRunCreated: 'child-run-created',
  cancelRequested: 'run-cancel-requested',
  interruptRequested: 'run-interrupt-requested',
  resumeRequested: 'run-resume-requested',
  messageSent: 'message-sent',
  signalSent: 'run-signal-sent',
  stageOutput: 'stage-output',
  stageProcessStarted: 'stage-process-started',
  traceStarted: 'run-trace-started',
  checkpointCreated: 'checkpoint-created',
  workspaceReset: 'workspace-reset',
  runRewound: 'run-rewound',
  runForked: 'run-forked',
  runMerged: 'run-merged',
  sandboxViolation: 'sandbox-violation',
} as const;

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

/** One file of a checkpoint; the list is cut at `MAX_CHECKPOINT_FILES` (`filesChanged` counts them all). */
export type CheckpointFilePayload = { path: string; status: string; added: number; removed: number; binary: boolean };

/**
 * A stage's changes committed on the run branch, written with its `stage-finished` (just
 * before it, in the same commit), so a finished stage always names its checkpoint. The
 * event's stage is the stage; a run's first checkpoint of the creator's uncommitted changes has none.
 */
export type CheckpointCreatedPayload = {
  commit: string;
  /** The previous checkpoint. */
  parent: string;
  filesChanged: number;
  linesAdded: number;
  linesRemoved: number;
  files: CheckpointFilePayload[];
  /** True when the checkpoint reached the run's remote. */
  pushed: boolean;
};

/**
 * A runner opened the run's workspace and found the run branch ahead of the last recorded
 * checkpoint (a runner died between committing and recording): the branch went back to
 * `commit` and the unrecorded tip is kept under `keptRef`.
 */
export type WorkspaceResetPayload = {
  commit: string;
  discarded: string;
  keptRef: string | null;
};

/** `weft rewind`: the run continues after `toStage` from that stage's checkpoint; nothing is deleted. */
export type RunRewoundPayload = {
  /** The stage whose checkpoint the run goes back to (e.g. `build@1`). */
  toStage: string;
  /** The seq of that stage's `stage-finished`: the run's state is replayed up to it. */
  toSeq: number;
  /** The checkpoint commit the files go back to. */
  commit: string;
  /** The run branch's tip before, and where it is kept (null when the branch was already there or the run works in place). */
  abandonedCommit: string | null;
  abandonedRef: string | null;
};

/** Written on a run when `weft fork` made a new run from one of its stages. */
export type RunForkedPayload = {
  forkId: string;
  fromStage: string;
  commit: string | null;
};

/** `weft merge`: the run's branch went into `into` (its branch is then kept when the run is removed). */
export type RunMergedPayload = {
  into: string;
  kind: 'fast-forward' | 'merge-commit' | 'up-to-date';
  commit: string;
  previous: string;
};

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

/** What an agent stage writes so its transcript can be read back (see `agent/transcript-events.ts`). */
export const AGENT_EVENT = {
  agentStarted: 'agent-started',
  /** The model's text as it streams in, coalesced (see `agent/text-stream.ts`); the turn's whole text follows in `model-turn-finished`. */
  modelTextStreamed: 'model-text-streamed',
  /** A model request failed in a way that can pass (429, 5xx, a reset) and is sent again after a delay. */
  modelRequestRetried: 'model-request-retried',
  modelTurnFinished: 'model-turn-finished',
  toolCallStarted: RUN_EVENT.toolCallStarted,
  toolCallFinished: RUN_EVENT.toolCallFinished,
  messageDelivered: 'message-delivered',
} as const;

export type AgentStartedPayload = {
  kind: string;
  provider: string;
  model: string;
  tools: string[];
  /** Tools the provider cannot take (their schemas), left out of the model's list. */
  droppedTools: string[];
  maxTurns: number;
  maxTokens: number | null;
  /** CLI stages: the CLI (`provider` is its display name) and its session id, which a later attempt of the stage resumes. */
  cli?: string;
  session?: string;
};

/** `cachedInputTokens` and `reasoningTokens` are present only where the provider reports them. */
export type TokenUsagePayload = {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Input tokens read from the provider's prompt cache (part of `inputTokens`). */
  cachedInputTokens?: number;
  /** Output tokens spent on reasoning (part of `outputTokens`). */
  reasoningTokens?: number;
  /** Input tokens written to the provider's prompt cache (part of `inputTokens`), where reported. */
  cacheWriteTokens?: number;
  /**
   * US dollars the provider or CLI backend reported for these turns (Claude Code's
   * `total_cost_usd`); a stage's turns add up to what the CLI reported. Logs before 0.x
   * named it `costUsd`, read as the same.
   */
  reportedCostUsd?: number;
  /** US dollars estimated from the price table (`[llm.prices]`, else the bundled one) for the turns nobody reported a cost for. */
  estimatedCostUsd?: number;
  /** Turns whose model has no known price: their cost is in neither figure. */
  unpricedTurns?: number;
};

export type ModelTurnFinishedPayload = {
  turn: number;
  text: string;
  toolCalls: { callId: string; tool: string; arguments: JsonValue }[];
  usage: TokenUsagePayload;
  finishReason: string;
  /** `provider:model` the turn went to, for spend by model; absent in CLI stages and older logs. */
  model?: string;
};

/**
 * Output of a stage while it runs, for those following it live: a command's stdout and
 * stderr in pieces (`stream` + `text`, batched, up to a cap per stage), or a CLI agent's
 * progress line (`progress`). The stage's whole output is in its `stage-finished`.
 */
export type StageOutputPayload = { stream: 'stdout' | 'stderr'; text: string } | { progress: string };

export type ModelTextStreamedPayload = {
  /** The turn this text belongs to (1-based, as in `model-turn-finished`). */
  turn: number;
  /** The text that arrived since the previous event of this turn. */
  text: string;
};

export type ModelRequestRetriedPayload = {
  turn: number;
  /** 1 for the first retry. */
  attempt: number;
  maxRetries: number;
  /** How long weft waits before sending the request again. */
  delayMs: number;
  /** The HTTP status the provider answered with; null for a connection reset or timeout. */
  status: number | null;
  /** What went wrong, secrets redacted. */
  error: string;
};

/** A tool call of a `tool` stage, or of an agent stage (with the model's `callId` and the `turn`). */
export type ToolCallStartedPayload = {
  tool: string;
  arguments: JsonValue;
  callId?: string;
  turn?: number;
};

export type ToolCallFinishedPayload = {
  tool: string;
  callId?: string;
  turn?: number;
  isError: boolean;
  durationMs: number;
  text: string;
  artifactPath: string | null;
  structuredContent?: JsonValue;
  /** Images and audio as a size note each: the log keeps no base64. */
  media?: { type: string; mimeType: string; bytes: number }[];
};

/** A message the agent stage passed on to its model. */
export type MessageDeliveredPayload = {
  turn: number;
  /** The `seq` of the `message-sent` event. */
  messageSeq: number;
  text: string;
};

/** An MCP server's sampling request served by the run's model (see `app/mcp-host/sampling-handler.ts`). */
export const SAMPLING_EVENT = {
  requested: 'sampling-requested',
  /** A failed model request for it that weft sends again, as `model-request-retried` is for an agent's turn. */
  retried: 'sampling-request-retried',
  finished: 'sampling-finished',
} as const;

/** A run's toolbox followed the MCP server catalogue (runtime registration, spec §3.8). */
export const MCP_EVENT = {
  serverAdded: 'mcp-server-added',
  serverRemoved: 'mcp-server-removed',
} as const;

type SamplingBase = {
  server: string;
  provider: string;
  model: string;
};

export type SamplingRequestedPayload = SamplingBase & {
  maxTokens: number;
  /** How many messages the server sent. */
  messages: number;
  systemPrompt: boolean;
};

export type SamplingRequestRetriedPayload = SamplingBase & {
  /** 1 for the first retry. */
  attempt: number;
  maxRetries: number;
  /** How long weft waits before sending the request again. */
  delayMs: number;
  /** The HTTP status the provider answered with; null for a connection reset or timeout. */
  status: number | null;
  /** What went wrong, secrets redacted. */
  error: string;
};

/** Either the answer (`usage`, `stopReason`, clipped `text`) or the `error`. */
export type SamplingFinishedPayload = SamplingBase & {
  durationMs: number;
  usage?: TokenUsagePayload;
  stopReason?: string | null;
  text?: string;
  error?: string;
};

/** A server added to a running run's toolbox: how its connection went. */
export type McpServerAddedPayload = {
  name: string;
  status: string;
  tools: number;
  error?: string;
};

export type McpServerRemovedPayload = {
  name: string;
};

/** What a run's budget writes (`runs/engine/budget-guard.ts`): the warning at 80 %, the stop at 100 %, a raise. */
export const BUDGET_EVENT = {
  warning: 'budget-warning',
  exceeded: 'budget-exceeded',
  raised: 'budget-raised',
} as const;

/** A run budget's limits; absent ones do not bound the run. */
export type BudgetLimitsPayload = {
  maxCostUsd?: number;
  maxTokens?: number;
  maxDurationMs?: number;
};

/** The dimension of a budget that was reached, and how far. */
export type BudgetWarningPayload = {
  /** `cost` (US dollars, reported + estimated), `tokens` or `duration` (ms since the run started). */
  dimension: 'cost' | 'tokens' | 'duration';
  spent: number;
  limit: number;
  /** spent / limit. */
  fraction: number;
  /** The limits in force, so a warning after a raise is told apart. */
  limits: BudgetLimitsPayload;
  /** The node whose own budget (`[nodes.<name>.budget]`) this is; absent for the run's budget. */
  stage?: string;
};

export type BudgetExceededPayload = BudgetWarningPayload & {
  /** `pause`: a question asks to raise or cancel; `fail`: the stage and run fail. */
  action: 'pause' | 'fail';
};

/** New limits, from the answer to a budget question; later checks (on any runner) use these. */
export type BudgetRaisedPayload = {
  limits: BudgetLimitsPayload;
  questionId: string;
  /** The node whose budget was raised; absent for the run's budget. */
  stage?: string;
};

/**
 * Every event type weft writes and the payload it carries. Readers cast `event.payload` to
 * `EventPayloads[typeof event.type]`; writers type theirs with it.
 */
export interface EventPayloads {
  [RUN_EVENT.runCreated]: RunCreatedPayload;
  [RUN_EVENT.runStatusChanged]: RunStatusChangedPayload;
  [RUN_EVENT.runArchived]: EmptyPayload;
  [RUN_EVENT.runUnarchived]: EmptyPayload;
  [RUN_EVENT.runParentChanged]: RunParentChangedPayload;
  [RUN_EVENT.stageStarted]: StageStartedPayload;
  [RUN_EVENT.stageFinished]: StageFinishedPayload;
  [RUN_EVENT.toolCallStarted]: ToolCallStartedPayload;
  [RUN_EVENT.toolCallFinished]: ToolCallFinishedPayload;
  [RUN_EVENT.questionAsked]: QuestionAskedPayload;
  [RUN_EVENT.questionAnswered]: QuestionAnsweredPayload;
  [RUN_EVENT.questionWithdrawn]: QuestionWithdrawnPayload;
  /** Nothing writes it today; the projection counts it. */
  [RUN_EVENT.artifactSaved]: JsonObject;
  [RUN_EVENT.pairStarted]: PairStartedPayload;
  [RUN_EVENT.pairEnded]: PairEndedPayload;
  [ENGINE_EVENT.childRunCreated]: ChildRunCreatedPayload;
  [ENGINE_EVENT.cancelRequested]: CancelRequestedPayload;
  [ENGINE_EVENT.interruptRequested]: EmptyPayload;
  [ENGINE_EVENT.resumeRequested]: EmptyPayload;
  [ENGINE_EVENT.messageSent]: MessageSentPayload;
  [ENGINE_EVENT.signalSent]: SignalSentPayload;
  [ENGINE_EVENT.stageOutput]: StageOutputPayload;
  [ENGINE_EVENT.stageProcessStarted]: StageProcessStartedPayload;
  [ENGINE_EVENT.sandboxViolation]: SandboxViolationPayload;
  [ENGINE_EVENT.traceStarted]: RunTraceStartedPayload;
  [ENGINE_EVENT.checkpointCreated]: CheckpointCreatedPayload;
  [ENGINE_EVENT.workspaceReset]: WorkspaceResetPayload;
  [ENGINE_EVENT.runRewound]: RunRewoundPayload;
  [ENGINE_EVENT.runForked]: RunForkedPayload;
  [ENGINE_EVENT.runMerged]: RunMergedPayload;
  [AGENT_EVENT.agentStarted]: AgentStartedPayload;
  [AGENT_EVENT.modelTextStreamed]: ModelTextStreamedPayload;
  [AGENT_EVENT.modelRequestRetried]: ModelRequestRetriedPayload;
  [AGENT_EVENT.modelTurnFinished]: ModelTurnFinishedPayload;
  [AGENT_EVENT.messageDelivered]: MessageDeliveredPayload;
  [SAMPLING_EVENT.requested]: SamplingRequestedPayload;
  [SAMPLING_EVENT.retried]: SamplingRequestRetriedPayload;
  [SAMPLING_EVENT.finished]: SamplingFinishedPayload;
  [MCP_EVENT.serverAdded]: McpServerAddedPayload;
  [MCP_EVENT.serverRemoved]: McpServerRemovedPayload;
  [BUDGET_EVENT.warning]: BudgetWarningPayload;
  [BUDGET_EVENT.exceeded]: BudgetExceededPayload;
  [BUDGET_EVENT.raised]: BudgetRaisedPayload;
}

export type EventType = keyof EventPayloads;

/** The event types the constants above name; `event-types.test.ts` holds `EventPayloads` to the same set. */
export type CatalogueEventType = (typeof RUN_EVENT)[keyof typeof RUN_EVENT] | (typeof ENGINE_EVENT)[keyof typeof ENGINE_EVENT] | (typeof AGENT_EVENT)[keyof typeof AGENT_EVENT] | (typeof SAMPLING_EVENT)[keyof typeof SAMPLING_EVENT] | (typeof MCP_EVENT)[keyof typeof MCP_EVENT] | (typeof BUDGET_EVENT)[keyof typeof BUDGET_EVENT];

/** Every event type in the catalogue. */
export const EVENT_TYPES: ReadonlySet<string> = new Set([RUN_EVENT, ENGINE_EVENT, AGENT_EVENT, SAMPLING_EVENT, MCP_EVENT, BUDGET_EVENT].flatMap((catalogue) => Object.values(catalogue)));
