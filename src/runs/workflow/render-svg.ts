/**
 * A workflow as a standalone SVG picture, laid out top to bottom by dagre: the one drawing
 * that `weft workflow graph --format svg`, `weft inspect --graph` and the dashboard show.
 *
 * Each node is a `<g class="weft-node" data-node=… data-kind=… data-state=…>`. Its colour
 * is written twice: as presentation attributes (for viewers without CSS) and as CSS rules
 * keyed by `data-state` inside the picture's `<style>`. CSS beats presentation attributes,
 * so the dashboard recolours a live run by changing `data-state` alone.
 */
import dagre from '@dagrejs/dagre';
import { drawnEdges, NODE_STATES, STATE_COLOURS, type DrawnEdge, type NodeState } from './graph-model.js';
import type { Workflow, WorkflowNode } from './types.js';

/** Text is measured by estimate: the picture is drawn without a font engine, and labels get room to spare. */
const NAME_CHAR_WIDTH = 7.8;
const KIND_CHAR_WIDTH = 6.6;
const LABEL_CHAR_WIDTH = 6.4;
const NODE_HEIGHT = 48;
const NODE_MIN_WIDTH = 96;
/** Conditions longer than this are cut in the picture; the full text is the edge's tooltip. */
const MAX_LABEL_CHARS = 40;
const MARGIN = 16;

const NEUTRAL = { fill: '#ffffff', stroke: '#6b7280' };

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const xml = (text: string): string => text.replace(/[&<>"']/g, (char) => XML_ESCAPES[char]!);
const round = (value: number): number => Math.round(value * 10) / 10;

interface Box {
  width: number;
  height: number;
}

function nodeBox(node: WorkflowNode): Box {
  const text = Math.max(node.name.length * NAME_CHAR_WIDTH, node.kind.length * KIND_CHAR_WIDTH);
  const width = Math.max(NODE_MIN_WIDTH, Math.ceil(text + 32));
  // A diamond holds its text only in its middle half.
  return node.kind === 'branch' ? { width: Math.ceil(width * 1.5), height: NODE_HEIGHT + 20 } : { width, height: NODE_HEIGHT };
}

function shortLabel(label: string): string {
  return label.length > MAX_LABEL_CHARS ? `${label.slice(0, MAX_LABEL_CHARS - 1).trimEnd()}…` : label;
}

function shapeOf(node: WorkflowNode, box: Box, colour: { fill: string; stroke: string }): string {
  const [w, h] = [box.width / 2, box.height / 2];
  const paint = `fill="${colour.fill}" stroke="${colour.stroke}"`;
  switch (node.kind) {
    case 'branch':
      return `<polygon class="weft-shape" points="0,${-h} ${w},0 0,${h} ${-w},0" ${paint}/>`;
    case 'human':
      return `<polygon class="weft-shape" points="${-w + 10},${-h} ${w},${-h} ${w - 10},${h} ${-w},${h}" ${paint}/>`;
    case 'parallel':
    case 'join':
      return `<rect class="weft-shape" x="${-w}" y="${-h}" width="${box.width}" height="${box.height}" rx="4" ${paint}/><rect class="weft-inner" x="${-w + 4}" y="${-h + 4}" width="${box.width - 8}" height="${box.height - 8}" rx="2" fill="none" stroke="${colour.stroke}"/>`;
    default:
      return `<rect class="weft-shape" x="${-w}" y="${-h}" width="${box.width}" height="${box.height}" rx="10" ${paint}/>`;
  }
}

function styleSheet(): string {
  const states = NODE_STATES.map((state) => {
    const { fill, stroke } = STATE_COLOURS[state];
    const node = `.weft-node[data-state="${state}"]`;
    return `${node} .weft-shape{fill:${fill};stroke:${stroke}}${node} .weft-inner{stroke:${stroke}}`;
  });
  return [
    '.weft-graph{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif}',
    '.weft-shape{stroke-width:1.5}',
    '.weft-node[data-state="running"] .weft-shape{stroke-width:3}',
    '.weft-name{font-size:13px;font-weight:600;fill:#111827;text-anchor:middle}',
    '.weft-kind{font-size:11px;fill:#4b5563;text-anchor:middle}',
    '.weft-edge path{fill:none;stroke:#6b7280;stroke-width:1.5}',
    '.weft-edge[data-style="fan-out"] path{stroke-width:2.75}',
    '.weft-edge[data-style="fan-in"] path{stroke-dasharray:5 4}',
    '.weft-edge text{font-size:11px;fill:#374151;text-anchor:middle}',
    '.weft-edge rect{fill:#ffffff;opacity:.85}',
    ...states,
  ].join('');
}

/**
 * Draws `workflow`; `states` (by node name) colours its nodes.
 *
 * @example renderSvg(workflow, { build: 'succeeded', test: 'running' }) // '<svg xmlns=…'
 */
export function renderSvg(workflow: Workflow, states: Readonly<Record<string, NodeState>> = {}): string {
  const graph = new dagre.graphlib.Graph({ multigraph: true });
  graph.setGraph({ rankdir: 'TB', nodesep: 36, ranksep: 44, edgesep: 16, marginx: MARGIN, marginy: MARGIN });
  const nodes = Object.values(workflow.nodes);
  for (const node of nodes) graph.setNode(node.name, nodeBox(node));
  const edges = drawnEdges(workflow);
  edges.forEach((edge, index) => {
    const label =
      edge.label === undefined
        ? {}
        : { width: Math.ceil(shortLabel(edge.label).length * LABEL_CHAR_WIDTH + 10), height: 16, labelpos: 'c' };
    graph.setEdge(edge.from, edge.to, label, `e${index}`);
  });
  dagre.layout(graph);

  const { width = 0, height = 0 } = graph.graph();
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="weft-graph" viewBox="0 0 ${Math.ceil(width)} ${Math.ceil(height)}" width="${Math.ceil(width)}" height="${Math.ceil(height)}" role="img" aria-label="${xml(`Workflow ${workflow.name}`)}">`,
    `<title>${xml(`Workflow ${workflow.name}`)}</title>`,
    `<style>${styleSheet()}</style>`,
    '<defs><marker id="weft-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#6b7280"/></marker></defs>',
    '<g class="weft-edges">',
    ...edges.map((edge, index) => drawEdge(edge, graph.edge({ v: edge.from, w: edge.to, name: `e${index}` }))),
    '</g>',
    '<g class="weft-nodes">',
    ...nodes.map((node) => drawNode(node, graph.node(node.name), states[node.name])),
    '</g>',
    '</svg>',
  ];
  return `${parts.join('\n')}\n`;
}

interface PlacedEdge {
  points?: { x: number; y: number }[];
  x?: number;
  y?: number;
  width?: number;
}

function drawEdge(edge: DrawnEdge, placed: PlacedEdge): string {
  const points = placed.points ?? [];
  const path = points.map((point, index) => `${index === 0 ? 'M' : 'L'}${round(point.x)},${round(point.y)}`).join(' ');
  const attributes = `class="weft-edge" data-from="${xml(edge.from)}" data-to="${xml(edge.to)}" data-style="${edge.style}"`;
  const tooltip = edge.label === undefined ? '' : `<title>${xml(edge.label)}</title>`;
  const label =
    edge.label === undefined || placed.x === undefined || placed.y === undefined
      ? ''
      : `<rect x="${round(placed.x - (placed.width ?? 0) / 2)}" y="${round(placed.y - 8)}" width="${placed.width ?? 0}" height="16" rx="3"/><text x="${round(placed.x)}" y="${round(placed.y + 4)}">${xml(shortLabel(edge.label))}</text>`;
  return `<g ${attributes}>${tooltip}<path d="${path}" marker-end="url(#weft-arrow)"/>${label}</g>`;
}

function drawNode(
  node: WorkflowNode,
  placed: { x: number; y: number; width: number; height: number },
  state: NodeState | undefined,
): string {
  const colour = state === undefined ? NEUTRAL : STATE_COLOURS[state];
  const stateAttribute = state === undefined ? '' : ` data-state="${state}"`;
  return [
    `<g class="weft-node" data-node="${xml(node.name)}" data-kind="${node.kind}"${stateAttribute} transform="translate(${round(placed.x)},${round(placed.y)})">`,
    `<title>${xml(`${node.name} (${node.kind})${state === undefined ? '' : ` — ${state}`}`)}</title>`,
    shapeOf(node, placed, colour),
    `<text class="weft-name" y="-2">${xml(node.name)}</text>`,
    `<text class="weft-kind" y="14">${node.kind}</text>`,
    '</g>',
  ].join('');
}
