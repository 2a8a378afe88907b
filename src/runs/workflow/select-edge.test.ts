/**
 * Edge selection: matching conditions by weight, ties by declaration order, the
 * unconditional fallback, and no match.
 */
import { describe, expect, it } from 'vitest';
import { compileCondition, type CompiledCondition } from './condition.js';
import { selectEdge } from './select-edge.js';
import type { Edge, WorkflowContext } from './types.js';

function when(source: string): CompiledCondition {
  const result = compileCondition(source);
  if (!result.ok) throw new Error(result.message);
  return result.condition;
}

const outcome = (exit_code: number): WorkflowContext => ({
  inputs: {},
  stages: {},
  last: { status: exit_code === 0 ? 'succeeded' : 'failed', exit_code },
});

describe('selectEdge', () => {
  const edges: Edge[] = [
    { to: 'fallback', weight: 0, line: 1 },
    { to: 'ok-low', when: when('exit_code == 0'), weight: 1, line: 2 },
    { to: 'ok-high', when: when('status == "succeeded"'), weight: 10, line: 3 },
    { to: 'ok-high-later', when: when('exit_code < 1'), weight: 10, line: 4 },
    { to: 'two', when: when('exit_code == 2'), weight: 0, line: 5 },
  ];

  it('takes the matching edge with the highest weight, the first declared on ties', () => {
    expect(selectEdge({ edges }, outcome(0))?.to).toBe('ok-high');
  });

  it('takes a lone matching edge even with weight 0 over the fallback', () => {
    expect(selectEdge({ edges }, outcome(2))?.to).toBe('two');
  });

  it('falls back to the unconditional edge when no condition holds, wherever it was declared', () => {
    expect(selectEdge({ edges }, outcome(5))?.to).toBe('fallback');
  });

  it('returns undefined when nothing matches and there is no fallback, and for exits', () => {
    expect(selectEdge({ edges: edges.slice(1) }, outcome(5))).toBeUndefined();
    expect(selectEdge({ edges: [] }, outcome(0))).toBeUndefined();
  });
});
