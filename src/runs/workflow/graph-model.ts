/**
 * What every drawing of a workflow shares, whatever the format: the stage states a node
 * can be coloured by (and their colours), and the edges as drawn — conditions as labels,
 * a parallel node's fan-out to its branches and its fan-in to the join.
 */
import type { Edge, Workflow, WorkflowNode } from './types.js';

export type NodeState = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'cancelled' | 'blocked' | 'waiting';

export const STATE_COLOURS: Readonly<Record<NodeState, { fill: string; stroke: string }>> = {
  pending: { fill: '#f3f4f6', stroke: '#9ca3af' },
  running: { fill: '#dbeafe', stroke: '#2563eb' },
  succeeded: { fill: '#dcfce7', stroke: '#16a34a' },
  failed: { fill: '#fee2e2', stroke: '#dc2626' },
  skipped: { fill: '#f9fafb', stroke: '#d1d5db' },
  cancelled: { fill: '#e5e7eb', stroke: '#6b7280' },
  blocked: { fill: '#fef3c7', stroke: '#d97706' },
  waiting: { fill: '#ede9fe', stroke: '#7c3aed' },
};

export const NODE_STATES = Object.keys(STATE_COLOURS) as NodeState[];

export interface DrawnEdge {
  from: string;
  to: string;
  label?: string;
  style: 'normal' | 'fan-out' | 'fan-in';
}

function edgeLabel(edge: Edge, node: WorkflowNode): string | undefined {
  const weight = edge.weight !== 0 ? ` (weight ${edge.weight})` : '';
  if (edge.when) return `${edge.when.source}${weight}`;
  const hasConditions = node.edges.some((other) => other.when !== undefined);
  return hasConditions ? `else${weight}` : weight.trim() || undefined;
}

/** Every edge to draw, in node declaration order. */
export function drawnEdges(workflow: Workflow): DrawnEdge[] {
  const edges: DrawnEdge[] = [];
  for (const node of Object.values(workflow.nodes)) {
    if (node.kind === 'parallel') {
      for (const branch of node.branches) edges.push({ from: node.name, to: branch, style: 'fan-out' });
      edges.push({ from: node.name, to: node.join, label: 'join', style: 'fan-in' });
    }
    for (const edge of node.edges) {
      const label = edgeLabel(edge, node);
      edges.push({ from: node.name, to: edge.to, ...(label === undefined ? {} : { label }), style: 'normal' });
    }
  }
  return edges;
}
