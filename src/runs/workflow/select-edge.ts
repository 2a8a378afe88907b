/**
 * Edge selection after a stage: among the edges whose condition holds, the highest weight
 * wins (ties go to the one declared first); when none holds, the first edge without a
 * condition is the fallback; with neither, there is no next node.
 */
import { evaluateCondition } from './condition.js';
import type { Edge, WorkflowContext } from './types.js';

/** The edge to follow, or undefined (an exit when the node has no edges, else "no edge matched"). */
export function selectEdge(node: { edges: readonly Edge[] }, context: WorkflowContext): Edge | undefined {
  let best: Edge | undefined;
  for (const edge of node.edges) {
    if (edge.when === undefined || !evaluateCondition(edge.when, context)) continue;
    if (best === undefined || edge.weight > best.weight) best = edge;
  }
  return best ?? node.edges.find((edge) => edge.when === undefined);
}
