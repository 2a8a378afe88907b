/**
 * What a node executor gets to run one stage, and what it hands back. Executors are
 * small functions per node kind; the run loop owns events for stage start and finish,
 * edges, retries and run status.
 */
import type { BudgetCheck } from './budget-guard.js';
import type { Logger } from '../../core/logger.js';
import type { ApprovalPrompt, ToolExecutor } from '../../tools/tool-executor.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { CallOrigin } from '../../tools/tool.js';
import type { JsonValue } from '../model/json.js';
import type { QuestionAskedPayload, TokenUsagePayload } from '../model/event-types.js';
import type { NewRunEvent, RunEvent } from '../model/run-event.js';
import type { RunRecord } from '../model/run-record.js';
import type { CreateRunParams, ListEventsOptions } from '../store/run-store.js';
import type { Workflow, WorkflowContext, WorkflowNode } from '../workflow/index.js';
import type { RunControl } from './run-control.js';
import type { TraceContext } from '../../core/telemetry/tracing.js';
import type { PreparedSandbox, SandboxViolation } from '../../core/sandbox/sandbox-provider.js';
import type { ModelCallGate } from './model-call-gate.js';

/** The tools one run can call: built-ins plus its MCP servers, behind the run's approval rules. */
export interface RunToolbox {
  registry: ToolRegistry;
  executor: ToolExecutor;
  /** Why a tool the registry lacks is missing (its MCP server failed or is still connecting), when known. */
  whyMissing?(name: string): string | undefined;
  close(): Promise<void>;
}

/** A question for a person, asked on the stage that is calling tools: a question-asked payload before it has an id. */
export type StageQuestion = Omit<QuestionAskedPayload, 'questionId'>;

/**
 * What a run's tools may ask of the run while a stage calls them: MCP servers that sample
 * the run's model or elicit input. Both attach to `origin`, the stage whose call the server
 * serves; without one (a server asking outside any call), to the stage started last.
 */
export interface RunBridge {
  /** Asks a question and waits (the run is `blocked`) for its answer; rejects with `TOOL_CANCELLED` when `signal` aborts. */
  ask(question: StageQuestion, signal: AbortSignal, origin?: CallOrigin): Promise<JsonValue>;
  /** Appends events to the run, on `origin`'s stage. */
  emit(events: NewRunEvent[], origin?: CallOrigin): Promise<void>;
}

/** What a stage's tool calls carry, so what they ask of the run lands on this stage. */
export function callOriginOf(stage: Pick<StageRun, 'run' | 'stageId' | 'attempt'>): CallOrigin {
  return { runId: stage.run.id, stageId: stage.stageId, attempt: stage.attempt };
}

/** `workDir` is where the run's stages work (its workspace): file tools are confined to it and stdio MCP servers get it as `${WORKDIR}`. */
export type RunToolboxFactory = (
  run: RunRecord,
  workflow: Workflow,
  askApproval: ApprovalPrompt,
  bridge: RunBridge,
  workDir: string,
  sandbox?: PreparedSandbox,
) => Promise<RunToolbox>;
/**
 * The run's sandbox for this attempt (`[run.sandbox]`), or undefined when it has none.
 * Rejects (a `WeftError` naming what is missing and how to install it) when the sandbox the
 * run asks for cannot be made: the run fails before any stage, never running unsandboxed.
 */
export type RunSandboxFactory = (
  run: RunRecord,
  workflow: Workflow,
  onViolation: (violation: SandboxViolation) => void,
  workDir: string,
) => Promise<PreparedSandbox | undefined>;

/** Runs `agent` and `prompt` stages; the agent layer provides it. */
export interface AgentStageRunner {
  runStage(stage: StageRun): Promise<StageResult>;
  /** A dry run's check: fails the stage (with `errorCode`) when it has no usable model configuration. */
  checkStage?(stage: StageRun): Promise<StageResult>;
}

/**
 * What a stage may read of the store and do to other runs: its own run's record and
 * events, and the children it creates. Its own writes go through `StageRun.emit`, under
 * the runner's lease; nothing here appends to its run.
 */
export interface StageRuns {
  /** Its own run as stored now (a pair session opened meanwhile, say). */
  ownRun(): Promise<RunRecord | undefined>;
  /** Its own run's events. */
  ownEvents(options?: ListEventsOptions): Promise<RunEvent[]>;
  /** Queues a child run of its own run. */
  createChild(params: Omit<CreateRunParams, 'parentId'>): Promise<RunRecord>;
  /** A child run of its own run; undefined when there is none with that id. */
  child(childId: string): Promise<RunRecord | undefined>;
  /** Asks a child run of its own run to stop. */
  cancelChild(childId: string, reason: string): Promise<void>;
}

export interface EngineServices {
  /** This run's records and its children, and nothing more of the store. */
  runs: StageRuns;
  logger: Logger;
  clock: () => number;
  newId: () => string;
  /** Built on first use, so runs without tool nodes never start MCP servers. */
  toolbox: () => Promise<RunToolbox>;
  /** The run's sandbox (prepared before its first stage); every process a stage starts goes through its `wrap`. */
  sandbox: () => PreparedSandbox | undefined;
  agent: AgentStageRunner | undefined;
  /** Makes sure some runner will execute a run this one just queued (a child run). */
  wakeRunners: () => void;
  /** How often waiting stages (children) look at the store again. */
  pollMs: number;
  /** Model limits (`[llm.limits]`), shared by every runner: absent where the store keeps none or the runner holds no lease (tests). */
  modelCalls?: ModelCallGate;
}

export interface StageRun {
  run: RunRecord;
  /**
   * Where the stage works: the run's workspace on this host (its worktree or clone, in the
   * same subfolder the run was created in), or the run's cwd when it works in place.
   */
  workDir: string;
  workflow: Workflow;
  node: WorkflowNode;
  stageId: string;
  attempt: number;
  /** Inputs, finished stages, env and `last` (the outcome that led here). */
  context: WorkflowContext;
  signal: AbortSignal;
  control: RunControl;
  services: EngineServices;
  /** Appends events for this stage (stageId filled in). */
  emit(events: NewRunEvent[]): Promise<RunEvent[]>;
  /**
   * Keeps events for this stage to go with its next append (one commit fewer): only for
   * steps with no effect outside the log, whose loss with the runner a new attempt repairs.
   */
  hold(events: NewRunEvent[]): void;
  /** Marks the run waiting for a person while `work` runs (blocked), then running again. */
  whileBlocked<T>(work: () => Promise<T>): Promise<T>;
  /** The stage's span: what the stage traces (agent, model turns, tool calls) goes under it. */
  traceContext: TraceContext;
  /** What an earlier runner already did in this stage before it was lost. */
  resume: { childId?: string; questionId?: string; answer?: JsonValue };
  /** The run's budget (`[run.budget]`), for stages that call a model to check before each turn; absent when the run has none. */
  budget?: BudgetCheck;
}

export interface StageResult {
  status: 'succeeded' | 'failed' | 'cancelled';
  output?: JsonValue;
  exitCode?: number | null;
  answer?: JsonValue;
  error?: string;
  /** Overrides edge selection (a parallel node fans out to its branches). */
  next?: string[];
  /** Model tokens the stage used (agent and prompt stages). */
  usage?: TokenUsagePayload;
  /** The `WeftError` code of a configuration mistake that failed the stage (see `StageFinishedPayload.errorCode`). */
  errorCode?: string;
  /**
   * Events of the stage's last step, appended with its `stage-finished` in one commit
   * instead of one of their own (a tool stage's `tool-call-finished`); the stage's id is
   * filled in as `emit` does.
   */
  finalEvents?: NewRunEvent[];
}

export type NodeExecutor<N extends WorkflowNode = WorkflowNode> = (stage: StageRun & { node: N }) => Promise<StageResult>;
