/**
 * A workflow as a Mermaid flowchart or a Graphviz DOT digraph: nodes labelled with name
 * and kind (shape by kind), edges labelled with their conditions (and weights), fan-out
 * edges of parallel nodes drawn bold, the fan-in to the join dashed. With `states`, nodes
 * are coloured by their stage state. Output depends only on the workflow, so it is stable.
 * SVG is laid out by dagre (`render-svg.ts`).
 */
import { WeftError } from '../../core/errors.js';
import { drawnEdges, NODE_STATES, STATE_COLOURS, type NodeState } from './graph-model.js';
import { renderSvg } from './render-svg.js';
import type { Workflow, WorkflowNode } from './types.js';

/** How a workflow graph is drawn: Mermaid or Graphviz dot text, or an SVG picture. */
export type GraphFormat = 'mermaid' | 'dot' | 'svg';
export const GRAPH_FORMATS: readonly GraphFormat[] = ['mermaid', 'dot', 'svg'];

/**
 * `value` as a graph format; `what` names the option or field in the error.
 *
 * @example parseGraphFormat('svg', '--format') // 'svg'
 */
export function parseGraphFormat(value: string, what: string): GraphFormat {
  if ((GRAPH_FORMATS as readonly string[]).includes(value)) return value as GraphFormat;
  throw new WeftError('USAGE', `${what} must be one of ${GRAPH_FORMATS.map((format) => `'${format}'`).join(', ')}, not '${value}'.`);
}

const MERMAID_ESCAPES: Record<string, string> = { '"': '#quot;', '<': '#lt;', '>': '#gt;', '&': '#amp;', '|': '#124;', '#': '#35;' };
const mermaidText = (text: string): string => text.replace(/["<>&|#]/g, (char) => MERMAID_ESCAPES[char]!);

function mermaidShape(node: WorkflowNode): [string, string] {
  if (node.kind === 'branch') return ['{', '}'];
  if (node.kind === 'human') return ['[/', '/]'];
  if (node.kind === 'parallel' || node.kind === 'join') return ['[[', ']]'];
  return ['[', ']'];
}

function renderMermaid(workflow: Workflow, states: Readonly<Record<string, NodeState>>): string {
  const ids = new Map(Object.keys(workflow.nodes).map((name, index) => [name, `n${index}`]));
  const lines = ['flowchart TD'];
  for (const node of Object.values(workflow.nodes)) {
    const [open, close] = mermaidShape(node);
    lines.push(`  ${ids.get(node.name)}${open}"${mermaidText(node.name)}<br/>${node.kind}"${close}`);
  }
  const arrows = { normal: '-->', 'fan-out': '==>', 'fan-in': '-.->' } as const;
  for (const edge of drawnEdges(workflow)) {
    const label = edge.label === undefined ? '' : `|"${mermaidText(edge.label)}"|`;
    lines.push(`  ${ids.get(edge.from)} ${arrows[edge.style]}${label} ${ids.get(edge.to)}`);
  }
  for (const state of NODE_STATES) {
    const members = Object.keys(workflow.nodes).filter((name) => states[name] === state);
    if (members.length === 0) continue;
    const { fill, stroke } = STATE_COLOURS[state];
    lines.push(`  classDef ${state} fill:${fill},stroke:${stroke}`);
    lines.push(`  class ${members.map((name) => ids.get(name)).join(',')} ${state}`);
  }
  return `${lines.join('\n')}\n`;
}

const dotText = (text: string): string => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

function dotShape(node: WorkflowNode): string {
  if (node.kind === 'branch') return ', shape=diamond';
  if (node.kind === 'human') return ', shape=parallelogram';
  if (node.kind === 'parallel' || node.kind === 'join') return ', peripheries=2';
  return '';
}

function renderDot(workflow: Workflow, states: Readonly<Record<string, NodeState>>): string {
  const lines = [
    `digraph ${dotText(workflow.name)} {`,
    '  rankdir=TB;',
    '  node [shape=box, style=rounded, fontname="Helvetica"];',
    '  edge [fontname="Helvetica", fontsize=10];',
  ];
  for (const node of Object.values(workflow.nodes)) {
    const state = states[node.name];
    const colour =
      state === undefined
        ? ''
        : `, style="rounded,filled", fillcolor="${STATE_COLOURS[state].fill}", color="${STATE_COLOURS[state].stroke}"`;
    lines.push(`  ${dotText(node.name)} [label=${dotText(`${node.name}\n${node.kind}`)}${dotShape(node)}${colour}];`);
  }
  const styles = { normal: '', 'fan-out': 'style=bold', 'fan-in': 'style=dashed' } as const;
  for (const edge of drawnEdges(workflow)) {
    const attributes = [styles[edge.style], edge.label === undefined ? '' : `label=${dotText(edge.label)}`].filter(Boolean);
    lines.push(`  ${dotText(edge.from)} -> ${dotText(edge.to)}${attributes.length > 0 ? ` [${attributes.join(', ')}]` : ''};`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** Renders the graph; `states` (by node name) colours nodes, e.g. for `weft inspect --graph`. */
export function renderGraph(workflow: Workflow, format: GraphFormat, states: Readonly<Record<string, NodeState>> = {}): string {
  switch (format) {
    case 'mermaid':
      return renderMermaid(workflow, states);
    case 'dot':
      return renderDot(workflow, states);
    case 'svg':
      return renderSvg(workflow, states);
  }
}
