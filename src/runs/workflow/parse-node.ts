/**
 * One `[nodes.<name>]` table → a typed node: the kind decides which fields are allowed and
 * required. Also returns the node's graph view (name, kind, edges, fan-out) even when the
 * node is broken, so graph checks still run and every problem is reported in one pass.
 */
import { describeValue, isTable } from '../../core/config-text/describe-value.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkTemplates } from './check-templates.js';
import { closest, suggestion } from '../../core/config-text/did-you-mean.js';
import { defined, FieldReader, report, type ParseContext } from './field-reader.js';
import type { GraphNode } from './graph-checks.js';
import { parseEdges } from './parse-edges.js';
import { parseLlmNode } from './parse-llm-node.js';
import { parseRetry } from './parse-retry.js';
import type { ReferenceScope } from './references.js';
import { NODE_KINDS, QUESTION_TYPES, type Edge, type NodeKind, type WorkflowNode } from './types.js';

const COMMON_FIELDS = ['kind', 'description', 'next', 'edges'];
const KIND_FIELDS: Record<NodeKind, readonly string[]> = {
  agent: ['prompt', 'prompt_file', 'system', 'model', 'max_turns', 'max_tokens', 'tools', 'timeout', 'retry', 'backend', 'cli', 'budget'],
  prompt: ['prompt', 'prompt_file', 'system', 'model', 'max_tokens', 'timeout', 'retry', 'budget'],
  command: ['run', 'cwd', 'env', 'timeout', 'retry'],
  tool: ['tool', 'args', 'timeout', 'retry'],
  human: ['question', 'type', 'options', 'timeout'],
  branch: [],
  parallel: ['branches', 'join'],
  join: [],
  child: ['workflow', 'inputs', 'timeout', 'retry'],
  wait: ['duration', 'event', 'timeout'],
  function: ['timeout', 'retry'],
};
export const NODE_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

interface Base {
  name: string;
  description?: string;
  line: number;
  edges: Edge[];
}

function parseHuman(node: FieldReader, base: Base, scope: ReferenceScope): WorkflowNode {
  node.require('question', '"…?"');
  const question = node.string('question', { nonEmpty: true }) ?? '';
  checkTemplates(node, 'question', scope);
  const type = node.has('type') ? node.oneOf('type', QUESTION_TYPES) : 'freeform';
  const options = node.stringArray('options', { nonEmpty: true });
  if (options) checkTemplates(node, 'options', scope);
  const needsOptions = type === 'choice' || type === 'multi_select';
  if (needsOptions && !node.has('options')) node.problem('type', `type "${type}" needs options — add options = ["…", "…"]`);
  if (!needsOptions && type !== undefined && node.has('options'))
    node.problem('options', `options are only used by type "choice" and "multi_select" — remove them or change the type`);
  return { kind: 'human', ...base, question, type: type ?? 'freeform', options, timeoutMs: node.duration('timeout') };
}

function parseParallel(node: FieldReader, base: Base, scope: ReferenceScope): WorkflowNode {
  node.require('branches', '["<node>", "<node>"]');
  node.require('join', '"<join node>"');
  const branches = node.stringArray('branches', { nonEmpty: true }) ?? [];
  branches.forEach((branch, index) => {
    if (!scope.nodes.has(branch))
      node.problem(
        'branches',
        `branch ${index + 1} '${branch}' is not a node${suggestion(branch, scope.nodes, ` — declare [nodes.${branch}] or fix the name`)}`,
      );
    if (branch === base.name) node.problem('branches', `lists itself as a branch — list the nodes to start in parallel`);
  });
  const join = node.string('join', { nonEmpty: true }) ?? '';
  if (join !== '' && !scope.nodes.has(join))
    node.problem('join', `join '${join}' is not a node${suggestion(join, scope.nodes, ` — declare [nodes.${join}] with kind = "join"`)}`);
  return { kind: 'parallel', ...base, branches, join };
}

function parseChild(node: FieldReader, base: Base, scope: ReferenceScope, dir: string): WorkflowNode {
  node.require('workflow', '"<child>.toml"');
  const file = node.string('workflow', { nonEmpty: true });
  const workflow = file === undefined ? '' : resolve(dir, file);
  if (file !== undefined && !existsSync(workflow)) {
    node.problem('workflow', `workflow file '${file}' does not exist — fix the path (it is relative to this workflow file)`);
  } else if (file !== undefined && workflow === resolve(node.context.file)) {
    node.problem('workflow', `runs its own workflow as a child — point it at another workflow file`);
  }
  const inputs = node.subtable('inputs') ?? {};
  checkTemplates(node, 'inputs', scope);
  return { kind: 'child', ...base, workflow, inputs, timeoutMs: node.duration('timeout'), retry: parseRetry(node) };
}

function parseWait(node: FieldReader, base: Base): WorkflowNode {
  const durationMs = node.duration('duration');
  const event = node.string('event', { nonEmpty: true });
  if (node.has('duration') && node.has('event'))
    node.problem('event', `has both 'duration' and 'event' — a wait node sleeps or waits for an event, not both`);
  if (!node.has('duration') && !node.has('event'))
    node.problem(undefined, `needs duration or event — add duration = "30s" or event = "<name>"`);
  if (node.has('timeout') && !node.has('event'))
    node.problem('timeout', `'timeout' only applies to event waits — remove it or wait for an event`);
  return { kind: 'wait', ...base, durationMs, event, timeoutMs: node.duration('timeout') };
}

function parseKind(node: FieldReader, kind: NodeKind, base: Base, scope: ReferenceScope, dir: string): WorkflowNode {
  switch (kind) {
    case 'agent':
    case 'prompt':
      return parseLlmNode(node, kind, base, scope, dir);
    case 'command': {
      node.require('run', '"<shell script>"');
      checkTemplates(node, 'run', scope);
      checkTemplates(node, 'cwd', scope);
      checkTemplates(node, 'env', scope);
      const fields = {
        run: node.string('run', { nonEmpty: true }) ?? '',
        cwd: node.string('cwd', { nonEmpty: true }),
        env: node.stringTable('env'),
      };
      return { kind, ...base, ...fields, timeoutMs: node.duration('timeout'), retry: parseRetry(node) };
    }
    case 'tool': {
      node.require('tool', '"<tool name>"');
      checkTemplates(node, 'args', scope);
      const fields = { tool: node.string('tool', { nonEmpty: true }) ?? '', args: node.subtable('args') ?? {} };
      return { kind, ...base, ...fields, timeoutMs: node.duration('timeout'), retry: parseRetry(node) };
    }
    case 'human':
      return parseHuman(node, base, scope);
    case 'parallel':
      return parseParallel(node, base, scope);
    case 'child':
      return parseChild(node, base, scope, dir);
    case 'wait':
      return parseWait(node, base);
    case 'branch':
      if (!node.has('edges') && !node.has('next'))
        node.problem(undefined, `a branch node needs edges — add [[nodes.${base.name}.edges]] tables with when = "…"`);
      return { kind, ...base };
    case 'join':
      return { kind, ...base };
    case 'function': {
      const run = node.context.functions?.get(base.name);
      if (!run)
        node.problem(
          undefined,
          `function nodes hold code, which only a workflow module can (export default defineWorkflow({ … }) in a .mjs/.ts file) — use a command node here`,
        );
      return { kind, ...base, run: run ?? (() => undefined), timeoutMs: node.duration('timeout'), retry: parseRetry(node) };
    }
    default: {
      const unreachable: never = kind;
      return unreachable;
    }
  }
}

/** Parses one node; `node` is undefined when the kind is missing or unknown. */
export function parseNode(
  context: ParseContext,
  name: string,
  value: unknown,
  scope: ReferenceScope,
  dir: string,
): { node?: WorkflowNode; graph: GraphNode } {
  const path = ['nodes', name];
  const line = context.lines.lineOf(path);
  if (!NODE_NAME.test(name)) {
    report(context, path, `node name '${name}' is not allowed — use letters, digits, '_' and '-', starting with a letter or '_'`);
  }
  if (!isTable(value)) {
    report(context, path, `node '${name}' must be a table, not ${describeValue(value)} — write [nodes.${name}] with kind = "…"`);
    return { graph: { name, kind: 'unknown', line, edges: [] } };
  }
  const rawKind = value.kind;
  const kind = typeof rawKind === 'string' && (NODE_KINDS as readonly string[]).includes(rawKind) ? (rawKind as NodeKind) : undefined;
  const node = new FieldReader(context, value, path, kind === undefined ? `node '${name}'` : `node '${name}' (${kind})`);
  const edges = parseEdges(node, kind ?? 'unknown', scope);
  if (kind === undefined) {
    // A TOML file cannot hold a function node's code: its messages offer only the kinds it can use.
    const kinds = context.functions ? NODE_KINDS : NODE_KINDS.filter((known) => known !== 'function');
    if (rawKind === undefined) node.problem(undefined, `missing 'kind' — add kind = "…" (one of ${kinds.join(', ')})`);
    else if (typeof rawKind !== 'string')
      node.problem('kind', `'kind' must be a string, not ${describeValue(rawKind)} — write kind = "…" (one of ${kinds.join(', ')})`);
    else {
      const match = closest(rawKind, kinds);
      const fix = match === undefined ? `use one of ${kinds.join(', ')}` : `did you mean '${match}'? (kinds: ${kinds.join(', ')})`;
      node.problem('kind', `unknown kind '${rawKind}' — ${fix}`);
    }
    return { graph: { name, kind: 'unknown', line, edges } };
  }
  node.rejectUnknown([...COMMON_FIELDS, ...KIND_FIELDS[kind]], `${kind} nodes`);
  const description = node.string('description');
  const parsed = defined(parseKind(node, kind, { name, ...(description === undefined ? {} : { description }), line, edges }, scope, dir));
  return { node: parsed, graph: parsed };
}
