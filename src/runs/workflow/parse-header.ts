/**
 * The parts of a workflow file around the nodes: `[workflow]` (name, description, start),
 * `[run]` defaults (goal, labels, auto_approve, model, approval, opaque `[run.agent]` with
 * its `mcps`, `[run.workspace]`, `[run.concurrency]` in concurrency-keys.ts) and `[inputs.<name>]` declarations.
 */
import { describeValue, isTable } from '../../core/config-text/describe-value.js';
import { basename, extname } from 'node:path';
import { readSandboxSpec, type SandboxSpec } from '../../core/sandbox/sandbox-rules.js';
import { defined, FieldReader, report, type ParseContext } from './field-reader.js';
import { parseConcurrency } from './concurrency-keys.js';
import { WORKSPACE_MODES, type WorkspaceSpec } from '../model/run-workspace.js';
import { parseBudgetTable } from './parse-budget.js';
import { INPUT_TYPES, type ApprovalRuleSpec, type InputSpec, type InputType, type RunDefaults } from './types.js';

const WORKFLOW_FIELDS = ['name', 'description', 'start'] as const;
const RUN_FIELDS = [
  'goal',
  'labels',
  'auto_approve',
  'model',
  'approval',
  'agent',
  'budget',
  'workspace',
  'sandbox',
  'concurrency',
] as const;
const WORKSPACE_FIELDS = ['mode', 'base', 'include_uncommitted', 'remote', 'repo', 'keep_branch'] as const;
const INPUT_FIELDS = ['description', 'default', 'required', 'type'] as const;
const APPROVAL_FIELDS = ['pattern', 'action'] as const;
const INPUT_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function section(context: ParseContext, data: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = data[key];
  if (value === undefined) return {};
  if (isTable(value)) return value;
  report(context, [key], `'${key}' must be a table, not ${describeValue(value)} — write a [${key}] table`);
  return {};
}

export function parseWorkflowSection(
  context: ParseContext,
  data: Record<string, unknown>,
): { name: string; description?: string; start?: string } {
  const reader = new FieldReader(context, section(context, data, 'workflow'), ['workflow'], '[workflow]');
  reader.rejectUnknown(WORKFLOW_FIELDS, '[workflow] tables');
  const name = reader.string('name', { nonEmpty: true }) ?? basename(context.file, extname(context.file));
  const description = reader.string('description');
  const start = reader.string('start', { nonEmpty: true });
  return { name, ...(description === undefined ? {} : { description }), ...(start === undefined ? {} : { start }) };
}

function parseApproval(run: FieldReader): ApprovalRuleSpec[] {
  const value = run.table.approval;
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    run.problem(
      'approval',
      `'approval' must be an array of { pattern, action } tables, not ${describeValue(value)} — write approval = [{ pattern = "mcp__*", action = "allow" }]`,
    );
    return [];
  }
  const rules: ApprovalRuleSpec[] = [];
  value.forEach((item, index) => {
    if (!isTable(item)) {
      run.problem('approval', `approval[${index}] must be a table, not ${describeValue(item)} — write { pattern = "…", action = "allow" }`);
      return;
    }
    const rule = new FieldReader(run.context, item, ['run', 'approval', index], `[run] approval[${index}]`);
    rule.rejectUnknown(APPROVAL_FIELDS, 'approval rules');
    const ok = [rule.require('pattern', '"<tool name glob>"'), rule.require('action', '"allow" | "deny" | "ask"')].every(Boolean);
    const pattern = rule.string('pattern', { nonEmpty: true });
    const action = rule.oneOf('action', ['allow', 'deny', 'ask'] as const);
    if (ok && pattern !== undefined && action !== undefined) rules.push({ pattern, action });
  });
  return rules;
}

function parseMcps(run: FieldReader, agent: Record<string, unknown>): RunDefaults['mcpServers'] {
  const mcps = agent.mcps;
  if (mcps === undefined) return undefined;
  const path = ['run', 'agent', 'mcps'];
  if (!isTable(mcps)) {
    report(
      run.context,
      path,
      `[run] 'agent.mcps' must be a table of servers, not ${describeValue(mcps)} — write [run.agent.mcps.<name>] tables`,
    );
    return undefined;
  }
  const servers: Record<string, Record<string, unknown>> = {};
  const lines: Record<string, number> = {};
  for (const [name, server] of Object.entries(mcps)) {
    if (!isTable(server)) {
      report(
        run.context,
        [...path, name],
        `[run] MCP server '${name}' must be a table, not ${describeValue(server)} — write [run.agent.mcps.${name}] with its settings`,
      );
      continue;
    }
    servers[name] = server;
    lines[name] = run.context.lines.lineOf([...path, name]);
  }
  return { file: run.context.file, servers, lines };
}

/** `[run.workspace]`: where the workflow's runs work; checked here, resolved when a run is created. */
function parseWorkspace(run: FieldReader): WorkspaceSpec | undefined {
  const table = run.subtable('workspace');
  if (table === undefined) return undefined;
  const workspace = new FieldReader(run.context, table, ['run', 'workspace'], '[run.workspace]');
  workspace.rejectUnknown(WORKSPACE_FIELDS, '[run.workspace] tables');
  const request = defined<WorkspaceSpec>({
    mode: workspace.oneOf('mode', WORKSPACE_MODES),
    base: workspace.string('base', { nonEmpty: true }),
    includeUncommitted: workspace.boolean('include_uncommitted'),
    remote: workspace.string('remote', { nonEmpty: true }),
    repo: workspace.string('repo', { nonEmpty: true }),
    keepBranch: workspace.boolean('keep_branch'),
  });
  if (request.mode === 'clone' && request.repo === undefined)
    workspace.problem('repo', `mode = "clone" needs the repository to clone — add repo = "<git URL or path>"`);
  if (request.repo !== undefined && request.mode !== 'clone')
    workspace.problem('repo', `'repo' is only for mode = "clone" — set mode = "clone" or remove repo`);
  if (request.mode === 'in-place') {
    for (const key of ['base', 'include_uncommitted', 'remote', 'keep_branch'] as const) {
      if (workspace.has(key))
        workspace.problem(
          key,
          `'${key}' has no effect with mode = "in-place" (there is no run branch) — remove it or use mode = "worktree"`,
        );
    }
  }
  return request;
}

function parseSandbox(run: FieldReader): SandboxSpec | undefined {
  const value = run.table.sandbox;
  if (value === undefined) return undefined;
  const { spec, problems } = readSandboxSpec(value, '[run.sandbox]');
  for (const problem of problems) report(run.context, ['run', 'sandbox'], problem);
  return spec;
}

export function parseRunSection(context: ParseContext, data: Record<string, unknown>): RunDefaults {
  const run = new FieldReader(context, section(context, data, 'run'), ['run'], '[run]');
  run.rejectUnknown(RUN_FIELDS, '[run] tables');
  const agent = run.subtable('agent') ?? {};
  const mcpServers = parseMcps(run, agent);
  const defaults = {
    goal: run.string('goal'),
    labels: run.stringTable('labels') ?? {},
    autoApprove: run.boolean('auto_approve'),
    model: run.string('model', { nonEmpty: true }),
    approval: parseApproval(run),
    agent,
    mcpServers,
    budget: parseBudgetTable(run),
    workspace: parseWorkspace(run),
    sandbox: parseSandbox(run),
    concurrency: parseConcurrency(context, run.table, new Set(isTable(data.inputs) ? Object.keys(data.inputs) : [])),
  };
  return defined<RunDefaults>(defaults);
}

function matchesType(value: unknown, type: InputType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isTable(value);
    default:
      return false;
  }
}

function parseInput(context: ParseContext, name: string, value: unknown): InputSpec | undefined {
  const path = ['inputs', name];
  const line = context.lines.lineOf(path);
  if (!INPUT_NAME.test(name))
    report(context, path, `input name '${name}' is not allowed — use letters, digits, '_' and '-', starting with a letter or '_'`);
  if (!isTable(value)) {
    report(
      context,
      path,
      `input '${name}' must be a table, not ${describeValue(value)} — write [inputs.${name}] with description, default or required`,
    );
    return undefined;
  }
  const input = new FieldReader(context, value, path, `input '${name}'`);
  input.rejectUnknown(INPUT_FIELDS, 'inputs');
  const description = input.string('description');
  const required = input.boolean('required') ?? false;
  const type = input.oneOf('type', INPUT_TYPES);
  if (required && value.default !== undefined)
    input.problem('default', `is required and has a default — remove the default or required = true`);
  if (type !== undefined && value.default !== undefined && !matchesType(value.default, type)) {
    input.problem('default', `'default' must be of type ${type}, not ${describeValue(value.default)} — change the default or the type`);
  }
  return {
    name,
    ...(description === undefined ? {} : { description }),
    required,
    ...(value.default === undefined ? {} : { default: value.default }),
    ...(type === undefined ? {} : { type }),
    line,
  };
}

export function parseInputs(context: ParseContext, data: Record<string, unknown>): Record<string, InputSpec> {
  const inputs: Record<string, InputSpec> = {};
  for (const [name, value] of Object.entries(section(context, data, 'inputs'))) {
    const input = parseInput(context, name, value);
    if (input) inputs[name] = input;
  }
  return inputs;
}
