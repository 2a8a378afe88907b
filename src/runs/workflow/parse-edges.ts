/**
 * A node's outgoing edges: `next = "x"` (one unconditional edge) or `[[nodes.<n>.edges]]`
 * tables `{ to, when, weight }`. Conditions are compiled and their references checked;
 * targets must be nodes.
 */
import { describeValue, isTable } from '../../core/config-text/describe-value.js';
import { compileCondition } from './condition.js';
import { suggestion } from '../../core/config-text/did-you-mean.js';
import { FieldReader } from './field-reader.js';
import { checkReference, type ReferenceScope } from './references.js';
import type { Edge } from './types.js';

const EDGE_FIELDS = ['to', 'when', 'weight'] as const;
const CONDITION_HELP =
  'conditions use status, exit_code, output, answer, inputs.<name>, stages.<node>.<field> with == != < <= > >= in && || !';

function checkTarget(reader: FieldReader, key: string | number | undefined, to: string, scope: ReferenceScope): void {
  if (scope.nodes.has(to)) return;
  reader.problem(
    key,
    `edge to unknown node '${to}'${suggestion(to, scope.nodes, ` — declare [nodes.${to}] or point the edge at an existing node`)}`,
  );
}

function parseEdge(node: FieldReader, index: number, value: unknown, scope: ReferenceScope): Edge | undefined {
  if (!isTable(value)) {
    node.problem('edges', `edges[${index}] must be a table, not ${describeValue(value)} — write [[nodes.<name>.edges]] with to = "…"`);
    return undefined;
  }
  const edge = new FieldReader(node.context, value, [...node.path, 'edges', index], node.subject);
  const line = node.context.lines.lineOf(edge.path);
  edge.rejectUnknown(EDGE_FIELDS, 'edges');
  if (!edge.require('to', '"<node>"')) return undefined;
  const to = edge.string('to', { nonEmpty: true });
  if (to !== undefined) checkTarget(edge, 'to', to, scope);
  let weight = 0;
  if (value.weight !== undefined) {
    if (typeof value.weight === 'number' && Number.isFinite(value.weight)) weight = value.weight;
    else edge.problem('weight', `'weight' must be a number, not ${describeValue(value.weight)} — write e.g. weight = 10`);
  }
  const source = edge.string('when');
  if (source === undefined) return to === undefined || edge.has('when') ? undefined : { to, weight, line };
  const compiled = compileCondition(source);
  if (!compiled.ok) {
    edge.problem('when', `invalid condition '${source}': ${compiled.message} — fix the expression; ${CONDITION_HELP}`);
    return undefined;
  }
  for (const path of compiled.condition.references) {
    const message = checkReference(path, scope, 'condition');
    if (message) edge.problem('when', `condition '${source}': ${message}`);
  }
  return to === undefined ? undefined : { to, when: compiled.condition, weight, line };
}

/** Reads `next` / `edges`; `parallel` nodes may have neither (they continue at their join). */
export function parseEdges(node: FieldReader, kind: string, scope: ReferenceScope): Edge[] {
  const { next, edges } = node.table;
  if (kind === 'parallel') {
    for (const key of ['next', 'edges'] as const) {
      if (node.table[key] !== undefined)
        node.problem(key, `a parallel node has no '${key}' — it continues at its join node; put the edges on the join`);
    }
    return [];
  }
  if (next !== undefined && edges !== undefined) {
    node.problem('next', `has both 'next' and 'edges' — use one: next = "x" for a single edge, [[…edges]] for several`);
  }
  const result: Edge[] = [];
  if (next !== undefined) {
    const to = node.string('next', { nonEmpty: true });
    if (to !== undefined) {
      checkTarget(node, 'next', to, scope);
      result.push({ to, weight: 0, line: node.context.lines.lineOf([...node.path, 'next']) });
    }
  }
  if (edges !== undefined) {
    if (!Array.isArray(edges)) {
      node.problem('edges', `'edges' must be an array of tables, not ${describeValue(edges)} — write [[nodes.<name>.edges]] tables`);
    } else {
      edges.forEach((value, index) => {
        const edge = parseEdge(node, index, value, scope);
        if (edge) result.push(edge);
      });
    }
  }
  const unconditional = result.filter((edge) => edge.when === undefined);
  for (const extra of unconditional.slice(1)) {
    node.context.problems.push({
      file: node.context.file,
      line: extra.line,
      message: `${node.subject}: more than one edge without 'when' (to '${unconditional[0]!.to}' and to '${extra.to}') — only the first is ever taken; add a condition or remove one`,
    });
  }
  return result;
}
