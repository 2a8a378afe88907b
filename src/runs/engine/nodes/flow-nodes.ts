/**
 * The nodes that only steer: `branch` (its edges decide), `parallel` (fans out to its
 * branches) and `join` (runs once every branch has arrived). They pass the outcome that
 * led to them along, so conditions after a branch still see it.
 */
import type { BranchNode, JoinNode, ParallelNode } from '../../workflow/index.js';
import type { NodeExecutor } from '../stage-context.js';

export const executeBranchNode: NodeExecutor<BranchNode> = async (stage) => {
  const last = stage.context.last;
  return {
    status: 'succeeded',
    output: (last?.output ?? null) as never,
    // `answer` and `exit_code` in the branch's conditions are those of the stage that led here.
    ...(last?.answer !== undefined ? { answer: last.answer as never } : {}),
    ...(last?.exit_code !== undefined ? { exitCode: last.exit_code } : {}),
  };
};

export const executeParallelNode: NodeExecutor<ParallelNode> = async (stage) => ({
  status: 'succeeded',
  output: stage.node.branches,
  next: [...stage.node.branches],
});

export const executeJoinNode: NodeExecutor<JoinNode> = async (stage) => {
  const parallel = Object.values(stage.workflow.nodes).find((node) => node.kind === 'parallel' && node.join === stage.node.name);
  const branches = parallel?.kind === 'parallel' ? parallel.branches : [];
  const outputs = Object.fromEntries(branches.map((branch) => [branch, (stage.context.stages[branch]?.output ?? null) as never]));
  return { status: 'succeeded', output: outputs };
};
