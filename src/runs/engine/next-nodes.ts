/**
 * Where a finished stage leads. Conditional edges are looked at for any outcome; the
 * unconditional edge is the fallback — after a failure only on nodes that route with
 * conditions, so a failing stage with a plain `next` fails the run instead of being
 * silently passed over.
 */
import { selectEdge, type StageOutcome, type WorkflowContext, type WorkflowNode } from '../workflow/index.js';
import type { StageResult } from './stage-context.js';

export interface NextStep {
  next: string[];
  /** Set when the stage stops the run. */
  error: string | null;
}

export function nextNodes(node: WorkflowNode, result: StageResult, outcome: StageOutcome, context: WorkflowContext): NextStep {
  if (result.status === 'cancelled') return { next: [], error: result.error ?? 'Cancelled' };
  if (result.next) return { next: result.next, error: null };
  const failed = result.status !== 'succeeded';
  const failure = `stage '${node.name}' failed${result.error ? `: ${result.error}` : ''}`;
  if (node.edges.length === 0) return { next: [], error: failed ? failure : null };
  if (failed && !node.edges.some((edge) => edge.when !== undefined)) return { next: [], error: failure };
  const edge = selectEdge(node, { ...context, last: outcome });
  if (!edge) {
    return {
      next: [],
      error: failed
        ? failure
        : `no edge of '${node.name}' matches its outcome (status ${outcome.status}${outcome.exit_code === undefined ? '' : `, exit_code ${outcome.exit_code}`}) and it has no fallback edge`,
    };
  }
  return { next: [edge.to], error: null };
}

export function retryDelayMs(retry: { backoffMs: number; factor: number; maxBackoffMs?: number }, failedAttempt: number): number {
  const delay = retry.backoffMs * retry.factor ** (failedAttempt - 1);
  return Math.min(delay, retry.maxBackoffMs ?? Number.POSITIVE_INFINITY);
}
