/**
 * Workflow text → `Workflow` or the full list of problems. Runs every check in one pass
 * (TOML syntax aside, which stops everything) so a person fixes a file in one round.
 */
import { describeValue, isTable } from '../../core/config-text/describe-value.js';
import { dirname, resolve } from 'node:path';
import { WeftError } from '../../core/errors.js';
import { parseToml } from '../../core/settings/toml-file.js';
import { suggestion } from '../../core/config-text/did-you-mean.js';
import { FieldReader, report, type ParseContext } from './field-reader.js';
import { checkGraph, type GraphNode } from './graph-checks.js';
import { buildLineMap } from '../../core/config-text/line-map.js';
import { parseInputs, parseRunSection, parseWorkflowSection } from './parse-header.js';
import { parseNode } from './parse-node.js';
import type { StageFunction, Workflow, WorkflowNode, WorkflowProblem } from './types.js';

const TOP_LEVEL = ['workflow', 'run', 'inputs', 'nodes'] as const;

export interface WorkflowValidation {
  /** Present only when there are no problems. */
  workflow?: Workflow;
  problems: WorkflowProblem[];
}

function syntaxProblem(file: string, error: unknown): WorkflowProblem {
  if (!WeftError.is(error, 'SETTINGS_INVALID') || typeof error.data.line !== 'number') throw error;
  const { line, column } = error.data as { line: number; column: number };
  const reason = error.message.replace(/^.*?: TOML syntax error: /, '').replace(/\.? Fix the file or move it aside\.$/, '');
  return { file, line, message: `TOML syntax error at column ${column}: ${reason} — fix the syntax` };
}

function sortProblems(file: string, problems: WorkflowProblem[]): WorkflowProblem[] {
  const rank = (problem: WorkflowProblem) => (problem.file === file ? 0 : 1);
  return problems
    .map((problem, index) => ({ problem, index }))
    .sort(
      (a, b) =>
        rank(a.problem) - rank(b.problem) ||
        a.problem.file.localeCompare(b.problem.file) ||
        a.problem.line - b.problem.line ||
        a.index - b.index,
    )
    .map(({ problem }) => problem);
}

function nodesTable(context: ParseContext, data: Record<string, unknown>): Record<string, unknown> {
  const nodes = data.nodes;
  if (nodes === undefined || (isTable(nodes) && Object.keys(nodes).length === 0)) {
    report(context, [], `the workflow has no nodes — add at least one [nodes.<name>] table with kind = "…"`);
    return {};
  }
  if (!isTable(nodes)) {
    report(context, ['nodes'], `'nodes' must be a table, not ${describeValue(nodes)} — write [nodes.<name>] tables`);
    return {};
  }
  return nodes;
}

/**
 * Parses and validates workflow text; `file` locates prompt and child files and names problems.
 * `functions` are the code of `function` nodes, which only a workflow module can give.
 */
export function validateWorkflowText(file: string, text: string, functions?: ReadonlyMap<string, StageFunction>): WorkflowValidation {
  let data: Record<string, unknown>;
  try {
    data = parseToml(file, text);
  } catch (error) {
    return { problems: [syntaxProblem(file, error)] };
  }
  const context: ParseContext = { file, lines: buildLineMap(text), problems: [], ...(functions ? { functions } : {}) };
  new FieldReader(context, data, [], 'workflow file').rejectUnknown(TOP_LEVEL, 'workflow files');
  const header = parseWorkflowSection(context, data);
  const run = parseRunSection(context, data);
  const inputs = parseInputs(context, data);
  const rawNodes = nodesTable(context, data);
  const rawInputs = isTable(data.inputs) ? data.inputs : {};
  const scope = { inputs: new Set(Object.keys(rawInputs)), nodes: new Set(Object.keys(rawNodes)) };
  const dir = dirname(resolve(file));

  const nodes: Record<string, WorkflowNode> = {};
  const graph: GraphNode[] = [];
  for (const [name, value] of Object.entries(rawNodes)) {
    const parsed = parseNode(context, name, value, scope, dir);
    if (parsed.node) nodes[name] = parsed.node;
    graph.push(parsed.graph);
  }

  let start = header.start ?? graph[0]?.name;
  if (header.start !== undefined && !scope.nodes.has(header.start)) {
    report(
      context,
      ['workflow', 'start'],
      `[workflow]: start '${header.start}' is not a node${suggestion(header.start, scope.nodes, ' — set start to the name of a node declared under [nodes]')}`,
    );
    start = undefined;
  }
  if (graph.length > 0) checkGraph(context, graph, start);

  const problems = sortProblems(file, context.problems);
  if (problems.length > 0 || start === undefined) return { problems };
  const workflow: Workflow = {
    name: header.name,
    ...(header.description === undefined ? {} : { description: header.description }),
    file: resolve(file),
    dir,
    start,
    run,
    inputs,
    nodes,
  };
  return { workflow, problems };
}
