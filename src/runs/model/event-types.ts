/**
 * Every event type weft writes to a run's log, in one catalogue: the store's and the
 * projection's (`RUN_EVENT`), the engine's (`ENGINE_EVENT`), an agent stage's transcript
 * (`AGENT_EVENT`) and MCP sampling (`SAMPLING_EVENT`). The log is the contract between the
 * layers that write and read it, so no other module spells an event type out
 * (`event-types.test.ts` checks). Types are noun-verb kebab strings. The payload types live by
 * group in `payloads/` and are re-exported here, so importers name this one module.
 */
import type { JsonObject } from './json.js';
import type {
  RunCreatedPayload,
  RunStatusChangedPayload,
  RunParentChangedPayload,
  QuestionAskedPayload,
  QuestionAnsweredPayload,
  QuestionWithdrawnPayload,
  PairStartedPayload,
  PairEndedPayload,
} from './payloads/run-payloads.js';
import type {
  SandboxViolationPayload,
  StageStartedPayload,
  StageProcessStartedPayload,
  RunTraceStartedPayload,
  StageFinishedPayload,
  ChildRunCreatedPayload,
  CancelRequestedPayload,
  MessageSentPayload,
  SignalSentPayload,
  EmptyPayload,
  StageOutputPayload,
} from './payloads/stage-payloads.js';
import type {
  CheckpointCreatedPayload,
  WorkspaceResetPayload,
  RunRewoundPayload,
  RunForkedPayload,
  RunMergedPayload,
} from './payloads/workspace-payloads.js';
import type {
  AgentStartedPayload,
  ModelTurnFinishedPayload,
  ModelTextStreamedPayload,
  ModelRequestRetriedPayload,
  ToolCallStartedPayload,
  ToolCallFinishedPayload,
  MessageDeliveredPayload,
  ModelCallThrottledPayload,
} from './payloads/agent-payloads.js';
import type {
  SamplingRequestedPayload,
  SamplingRequestRetriedPayload,
  SamplingFinishedPayload,
  McpServerAddedPayload,
  McpServerRemovedPayload,
} from './payloads/sampling-payloads.js';
import type { BudgetWarningPayload, BudgetExceededPayload, BudgetRaisedPayload } from './payloads/budget-payloads.js';
export type * from './payloads/run-payloads.js';
export type * from './payloads/stage-payloads.js';
export type * from './payloads/workspace-payloads.js';
export type * from './payloads/agent-payloads.js';
export type * from './payloads/sampling-payloads.js';
export type * from './payloads/budget-payloads.js';

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
export const RESERVED_EVENT_TYPES: ReadonlySet<string> = new Set([
  RUN_EVENT.runCreated,
  RUN_EVENT.runArchived,
  RUN_EVENT.runUnarchived,
  RUN_EVENT.runParentChanged,
  RUN_EVENT.questionWithdrawn,
]);

/**
 * Why a pair session ended: `ended` on request; `stage-finished` when its stage ended
 * (written by the agent runner as the stage ends; named after the event that ended it). The projection also closes a session
 * when its stage finishes or the run ends without this event (a runner that died).
 */
export const PAIR_END_REASON = { ended: 'ended', stageFinished: RUN_EVENT.stageFinished } as const;
export const PAIR_END_REASONS = [PAIR_END_REASON.ended, PAIR_END_REASON.stageFinished] as const;
export type PairEndReason = (typeof PAIR_END_REASONS)[number];

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
  /** A model call waited for a slot under `[llm.limits]` (once per call, when the wait ends); not a retry. */
  modelCallThrottled: 'model-call-throttled',
} as const;

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

/** What a run's budget writes (`runs/engine/budget-guard.ts`): the warning at 80 %, the stop at 100 %, a raise. */
export const BUDGET_EVENT = {
  warning: 'budget-warning',
  exceeded: 'budget-exceeded',
  raised: 'budget-raised',
} as const;

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
  [AGENT_EVENT.modelCallThrottled]: ModelCallThrottledPayload;
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
export type CatalogueEventType =
  | (typeof RUN_EVENT)[keyof typeof RUN_EVENT]
  | (typeof ENGINE_EVENT)[keyof typeof ENGINE_EVENT]
  | (typeof AGENT_EVENT)[keyof typeof AGENT_EVENT]
  | (typeof SAMPLING_EVENT)[keyof typeof SAMPLING_EVENT]
  | (typeof MCP_EVENT)[keyof typeof MCP_EVENT]
  | (typeof BUDGET_EVENT)[keyof typeof BUDGET_EVENT];

/** Every event type in the catalogue. */
export const EVENT_TYPES: ReadonlySet<string> = new Set(
  [RUN_EVENT, ENGINE_EVENT, AGENT_EVENT, SAMPLING_EVENT, MCP_EVENT, BUDGET_EVENT].flatMap((catalogue) => Object.values(catalogue)),
);
