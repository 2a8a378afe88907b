/**
 * `weft-runtime/workflow`: workflows written in TypeScript. A definition has the tables and
 * field names of a workflow TOML file and goes through the same validation, graph and
 * engine; export it as a module's default and run it like a file (`weft run flow.mjs`, or
 * `createRun({ workflow: 'flow.mjs' })`).
 *
 * @module weft-runtime/workflow
 */
import { resolve } from 'node:path';
import { definitionToToml, workflowFromDefinition, type WorkflowDefinition } from '../runs/workflow/definition.js';
import { renderGraph, type GraphFormat } from '../runs/workflow/render-graph.js';
import type { Workflow } from '../runs/workflow/types.js';

export type {
  DurationText,
  EdgeDefinition,
  InputDefinition,
  NodeDefinition,
  RetryDefinition,
  WorkflowDefinition,
} from '../runs/workflow/definition.js';
export type { InputType, QuestionType, Workflow, WorkflowNode, WorkflowProblem, NodeKind, Edge } from '../runs/workflow/types.js';
export { AGENT_BACKENDS, CLI_NAMES, type AgentBackend, type CliName } from '../runs/workflow/types.js';
export type {
  AgentNode,
  ApprovalRuleSpec,
  BranchNode,
  ChildNode,
  CommandNode,
  ConcurrencySpec,
  FunctionNode,
  FunctionStageContext,
  HumanNode,
  InputSpec,
  JoinNode,
  ParallelNode,
  PromptNode,
  RetryPolicy,
  RunBudgetSpec,
  RunDefaults,
  StageFunction,
  StageOutcome,
  ToolNode,
  WaitNode,
} from '../runs/workflow/types.js';
/** `[run.sandbox]` as a workflow writes it (docs/workflow-format.md, docs/security.md). */
export type { SandboxMode, SandboxNetwork, SandboxSpec } from '../core/sandbox/sandbox-rules.js';
export type { GraphFormat };
export { WeftError, type WeftErrorCode } from '../core/errors.js';

/**
 * Types a definition; returns it unchanged (validation happens when it is loaded or checked).
 * @example
 * export default defineWorkflow({
 *   workflow: { name: 'greet' },
 *   nodes: { hello: { kind: 'command', run: 'echo hello' } },
 * });
 */
export function defineWorkflow<const T extends WorkflowDefinition>(definition: T): T {
  return definition;
}

/**
 * Validates a definition as the runner would; throws `WORKFLOW_INVALID` listing every problem.
 * `file` anchors relative paths (prompt and child files) and names the problems; default `<cwd>/<name>.workflow.ts`.
 */
export function checkWorkflow(definition: WorkflowDefinition, file?: string): Workflow {
  return workflowFromDefinition(file ?? resolve(`${definition.workflow.name}.workflow.ts`), definition);
}

/** The TOML file a definition is equivalent to. */
export function workflowToToml(definition: WorkflowDefinition): string {
  return definitionToToml(definition);
}

/** The workflow's graph as Mermaid (default) or Graphviz dot. */
export function workflowGraph(definition: WorkflowDefinition, format: GraphFormat = 'mermaid'): string {
  return renderGraph(checkWorkflow(definition), format);
}
