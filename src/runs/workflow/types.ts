/**
 * The shape of a loaded workflow: run defaults, declared inputs, and nodes (a union by
 * `kind`) each carrying its outgoing edges. Produced by `validateWorkflowText`, read by the
 * runner, the CLI and the dashboard. Durations are in milliseconds, paths are absolute.
 */
import type { SandboxSpec } from '../../core/sandbox/sandbox-rules.js';
import type { CompiledCondition } from './condition.js';
import type { CliName } from '../../core/cli-names.js';
import type { WorkspaceSpec } from '../model/run-workspace.js';

/** One validation problem; `line` is 1-based in `file`. `message` ends with ` — how to fix`. */
export interface WorkflowProblem {
  file: string;
  line: number;
  message: string;
}

export const NODE_KINDS = [
  'agent',
  'prompt',
  'command',
  'tool',
  'human',
  'branch',
  'parallel',
  'join',
  'child',
  'wait',
  'function',
] as const;
/** The kinds of node a workflow can have. */
export type NodeKind = (typeof NODE_KINDS)[number];

export const QUESTION_TYPES = ['yes_no', 'choice', 'multi_select', 'freeform', 'confirmation'] as const;
/** The answer types of a `human` node. */
export type QuestionType = (typeof QUESTION_TYPES)[number];

export const INPUT_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;
/** The types an input can declare. */
export type InputType = (typeof INPUT_TYPES)[number];

/** An outgoing edge of a checked workflow's node. */
export interface Edge {
  to: string;
  when?: CompiledCondition;
  /** Higher wins among matching conditional edges; 0 when not given. */
  weight: number;
  line: number;
}

/** A checked stage's retries. */
export interface RetryPolicy {
  /** Total attempts including the first (≥ 1). */
  attempts: number;
  backoffMs: number;
  /** Multiplier applied to the backoff after each failed attempt (≥ 1). */
  factor: number;
  maxBackoffMs?: number;
}

interface NodeBase {
  name: string;
  description?: string;
  /** Line of the node's table header (or first key) in the workflow file. */
  line: number;
  /** Outgoing edges in declaration order; empty for exits (and for `parallel`). */
  edges: Edge[];
}

interface Retrying {
  timeoutMs?: number;
  retry?: RetryPolicy;
}

interface LlmFields extends Retrying {
  /** The prompt template: inline `prompt`, or the text of `prompt_file`. */
  prompt: string;
  /** Absolute path of `prompt_file`, when the prompt came from one. */
  promptFile?: string;
  system?: string;
  model?: string;
  maxTokens?: number;
  /** `[nodes.<name>.budget]`: what this node may spend in the run (all its attempts), checked beside the run's. */
  budget?: RunBudgetSpec;
}

/** The external coding CLIs an agent stage can run on (`backend = "cli"`), as settings' `[cli.<name>]` names them. */
export { CLI_NAMES, type CliName } from '../../core/cli-names.js';

/** Where an agent stage runs: weft's own loop over a model API, or an external coding CLI. */
export const AGENT_BACKENDS = ['weft', 'cli'] as const;
/** `weft` (its own loop over a model API) or `cli` (an external coding CLI). */
export type AgentBackend = (typeof AGENT_BACKENDS)[number];

/** A checked `agent` node: a model with tools, in a loop. */
export interface AgentNode extends NodeBase, LlmFields {
  kind: 'agent';
  maxTurns?: number;
  /** Names of the tools the agent may use; undefined means the run's default set. */
  tools?: string[];
  /** `backend`; undefined means `[llm] backend` in settings, else `weft`. */
  backend?: AgentBackend;
  /** `cli`, with `backend = "cli"`; undefined means `[llm] cli` in settings. */
  cli?: CliName;
}

/** A checked `prompt` node: one model call without tools. */
export interface PromptNode extends NodeBase, LlmFields {
  kind: 'prompt';
}

/** A checked `command` node: a shell command. */
export interface CommandNode extends NodeBase, Retrying {
  kind: 'command';
  /** Shell script (template), run in the workspace. */
  run: string;
  /** Working directory relative to the workspace root. */
  cwd?: string;
  env?: Record<string, string>;
}

/** A checked `tool` node: one tool call with fixed arguments. */
export interface ToolNode extends NodeBase, Retrying {
  kind: 'tool';
  tool: string;
  /** Arguments; strings inside are templates (see `resolveArgs`). */
  args: Record<string, unknown>;
}

/** A checked `human` node: a question for a person. */
export interface HumanNode extends NodeBase {
  kind: 'human';
  question: string;
  type: QuestionType;
  options?: string[];
  timeoutMs?: number;
}

/** A checked `branch` node: picks an edge by condition. */
export interface BranchNode extends NodeBase {
  kind: 'branch';
}

/** A checked `parallel` node: starts branches that meet at a `join`. */
export interface ParallelNode extends NodeBase {
  kind: 'parallel';
  branches: string[];
  join: string;
}

/** A checked `join` node: waits for the branches of a `parallel` node. */
export interface JoinNode extends NodeBase {
  kind: 'join';
}

/** A checked `child` node: runs another workflow as a child run. */
export interface ChildNode extends NodeBase, Retrying {
  kind: 'child';
  /** Absolute path of the child workflow file. */
  workflow: string;
  /** Inputs for the child run; strings inside are templates. */
  inputs: Record<string, unknown>;
}

/** A checked `wait` node: waits for a duration or a signal. */
export interface WaitNode extends NodeBase {
  kind: 'wait';
  durationMs?: number;
  event?: string;
  /** Only with `event`: give up waiting after this long. */
  timeoutMs?: number;
}

/** What a function stage is given: the same values templates see, and the stage's cancellation. */
export interface FunctionStageContext {
  inputs: Record<string, unknown>;
  stages: Record<string, StageOutcome>;
  run: { id: string; goal?: string };
  attempt: number;
  /** Aborts when the run is cancelled or the stage times out. */
  signal: AbortSignal;
}

/** A stage written as code; its return value (JSON) is the stage's output. */
export type StageFunction = (context: FunctionStageContext) => unknown;

/** Only in workflow modules (TOML cannot hold code): runs inside the runner process. */
export interface FunctionNode extends NodeBase, Retrying {
  kind: 'function';
  run: StageFunction;
}

/** A checked node, by `kind`. */
export type WorkflowNode =
  AgentNode | PromptNode | CommandNode | ToolNode | HumanNode | BranchNode | ParallelNode | JoinNode | ChildNode | WaitNode | FunctionNode;

/** A checked input declaration. */
export interface InputSpec {
  name: string;
  description?: string;
  required: boolean;
  default?: unknown;
  type?: InputType;
  line: number;
}

/** An approval rule of `[run]`. */
export interface ApprovalRuleSpec {
  pattern: string;
  action: 'allow' | 'deny' | 'ask';
}

/** `[run.budget]` (or a node's `budget`): what a run (or a stage) may spend before it is stopped between two model turns. */
export interface RunBudgetSpec {
  maxCostUsd?: number;
  maxTokens?: number;
  maxDurationMs?: number;
  /** `pause` (default): a question asks to raise the budget or cancel; `fail`: the stage and the run fail. */
  onExceeded: 'pause' | 'fail';
}

/** One `[run.concurrency]` key as written: a template (over inputs and the goal) and its limit. */
export interface ConcurrencySpec {
  key: string;
  limit: number;
}

/** A checked workflow's `[run]` table: defaults for its runs. */
export interface RunDefaults {
  budget?: RunBudgetSpec;
  goal?: string;
  labels: Record<string, string>;
  autoApprove?: boolean;
  model?: string;
  approval: ApprovalRuleSpec[];
  /** `[run.agent]` as written, for the agent layer (including `mcps`). */
  agent: Record<string, unknown>;
  /** `[run.agent.mcps.*]`, unvalidated here, with where they were written for the MCP config layer's messages. */
  mcpServers?: { file: string; servers: Record<string, Record<string, unknown>>; lines: Record<string, number> };
  /** `[run.workspace]`, checked; resolved per run at creation. */
  workspace?: WorkspaceSpec;
  /** `[run.sandbox]` as written (checked): layered over the settings' for the workflow's runs. */
  sandbox?: SandboxSpec;
  /** `[run.concurrency]` keys as templates (checked); rendered per run at creation. */
  concurrency?: ConcurrencySpec[];
}

/** A checked workflow, as the runner executes it (what `checkWorkflow` returns). Durations are in milliseconds, paths absolute. */
export interface Workflow {
  name: string;
  description?: string;
  /** Absolute path of the workflow file. */
  file: string;
  dir: string;
  start: string;
  run: RunDefaults;
  inputs: Record<string, InputSpec>;
  /** In declaration order. */
  nodes: Record<string, WorkflowNode>;
}

/** What one finished stage left behind; field names are the ones expressions use. */
export interface StageOutcome {
  status: string;
  output?: unknown;
  exit_code?: number | null;
  answer?: unknown;
}

/** Everything conditions and templates can see while a run executes. */
export interface WorkflowContext {
  inputs: Record<string, unknown>;
  stages: Record<string, StageOutcome>;
  env?: Record<string, string | undefined>;
  run?: { id: string; goal?: string };
  /** The stage whose edges are being chosen: `status`, `exit_code`, `output`, `answer` in conditions. */
  last?: StageOutcome;
}
