/**
 * Workflows written as code: a typed object with the same tables and field names as a
 * workflow TOML file (`[workflow]`, `[run]`, `[inputs.*]`, `[nodes.*]`). It is written out
 * as TOML text and goes through the one validator, so a definition and a file mean the same
 * run graph and get the same problems (a problem's line is one of that generated text).
 */
import { stringify } from 'smol-toml';
import { WeftError } from '../../core/errors.js';
import { formatProblems } from './load-workflow.js';
import type { AgentBackend, CliName, InputType, QuestionType, StageFunction, Workflow } from './types.js';
import { validateWorkflowText } from './validate-workflow.js';

/** `"30s"`, `"5m"`, `"1h"` — or a number of seconds. */
export type DurationText = string | number;

/** A stage's retries: a number of attempts, or attempts with a backoff (as `retry` in TOML). */
export type RetryDefinition = number | { attempts: number; backoff?: DurationText; factor?: number; max_backoff?: DurationText };

/** An edge to another node, taken when its condition holds (the highest `weight` wins among those that match). */
export interface EdgeDefinition {
  to: string;
  /** A condition: `status == "succeeded"`, `answer == true`, `stages.x.exit_code != 0` … */
  when?: string;
  weight?: number;
}

interface NodeCommon {
  description?: string;
  /** One unconditional edge; or `edges` for conditional ones. */
  next?: string;
  edges?: EdgeDefinition[];
}

interface Retrying {
  timeout?: DurationText;
  retry?: RetryDefinition;
}

interface LlmFields extends Retrying {
  prompt?: string;
  prompt_file?: string;
  system?: string;
  model?: string;
  max_tokens?: number;
}

/** One node, by `kind`, with the fields of its `[nodes.<name>]` table (see docs/workflow-format.md). */
export type NodeDefinition = NodeCommon &
  (
    | ({ kind: 'agent'; max_turns?: number; tools?: string[]; backend?: AgentBackend; cli?: CliName } & LlmFields)
    | ({ kind: 'prompt' } & LlmFields)
    | ({ kind: 'command'; run: string; cwd?: string; env?: Record<string, string> } & Retrying)
    | ({ kind: 'tool'; tool: string; args?: Record<string, unknown> } & Retrying)
    | { kind: 'human'; question: string; type?: QuestionType; options?: string[]; timeout?: DurationText }
    | { kind: 'branch' }
    | { kind: 'parallel'; branches: string[]; join: string }
    | { kind: 'join' }
    | ({ kind: 'child'; workflow: string; inputs?: Record<string, unknown> } & Retrying)
    | { kind: 'wait'; duration?: DurationText; event?: string; timeout?: DurationText }
    | ({ kind: 'function'; run: StageFunction } & Retrying)
  );

/** A declared input (`[inputs.<name>]`). */
export interface InputDefinition {
  description?: string;
  required?: boolean;
  default?: unknown;
  type?: InputType;
}

/** A workflow as a typed object: the tables of a workflow TOML file (`[workflow]`, `[run]`, `[inputs.*]`, `[nodes.*]`). */
export interface WorkflowDefinition {
  workflow: { name: string; description?: string; start?: string };
  run?: {
    goal?: string;
    labels?: Record<string, string>;
    auto_approve?: boolean;
    model?: string;
    approval?: { pattern: string; action: 'allow' | 'deny' | 'ask' }[];
    /** `[run.agent]`: default tools, `mcps` servers for agent stages, … (see docs/workflow-format.md). */
    agent?: Record<string, unknown>;
    /** `[run.workspace]`: where the run works (docs/workspaces.md). */
    workspace?: {
      mode?: 'worktree' | 'in-place' | 'clone';
      base?: string;
      include_uncommitted?: boolean;
      remote?: string;
      repo?: string;
      keep_branch?: boolean;
    };
  };
  inputs?: Record<string, InputDefinition>;
  /** In order: the first node is the start unless `workflow.start` says otherwise. */
  nodes: Record<string, NodeDefinition>;
}

/** The code of the definition's `function` nodes, by node name, and the definition without it (what TOML can hold). */
function splitFunctions(definition: WorkflowDefinition): { data: WorkflowDefinition; functions: Map<string, StageFunction> } {
  const functions = new Map<string, StageFunction>();
  const nodes: Record<string, unknown> = {};
  for (const [name, node] of Object.entries(definition.nodes ?? {})) {
    if (node?.kind === 'function' && typeof node.run === 'function') {
      functions.set(name, node.run);
      const { run: _code, ...rest } = node;
      nodes[name] = rest;
    } else nodes[name] = node;
  }
  return { data: { ...definition, nodes: nodes as WorkflowDefinition['nodes'] }, functions };
}

/** The TOML text a definition stands for (what `weft workflow` commands would read from a file); `function` nodes keep only their fields, not their code. */
export function definitionToToml(definition: WorkflowDefinition): string {
  try {
    return stringify(splitFunctions(definition).data);
  } catch (error) {
    throw new WeftError(
      'WORKFLOW_INVALID',
      `The workflow definition cannot be written as TOML (${(error as Error).message}) — use only strings, numbers, booleans, arrays and plain objects.`,
      { cause: error },
    );
  }
}

/** Validates a definition like a file; `file` names where it came from and anchors relative paths (prompt and child files). */
export function workflowFromDefinition(file: string, definition: WorkflowDefinition): Workflow {
  const { functions } = splitFunctions(definition);
  const { workflow, problems } = validateWorkflowText(file, definitionToToml(definition), functions);
  if (!workflow) throw new WeftError('WORKFLOW_INVALID', formatProblems(problems), { data: { file, problems } });
  return workflow;
}
