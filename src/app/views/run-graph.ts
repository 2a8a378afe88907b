/**
 * A run's workflow drawn with each node coloured by where the run stands on it: what
 * `weft inspect --graph` prints and the dashboard's run page shows. The states come from
 * the run's stage events, so they are right for parallel branches and retries alike.
 */
import type { RunRecord } from '../../runs/model/run-record.js';
import { isTerminal } from '../../runs/model/run-status.js';
import type { RunService } from '../services/run-service.js';
import type { StageRecord } from '../../runs/stage-fold.js';
import type { GraphFormat } from '../../runs/workflow/render-graph.js';
import type { NodeState } from '../../runs/workflow/graph-model.js';
import { loadWorkflow } from '../../runs/workflow/index.js';
import type { Workflow } from '../../runs/workflow/types.js';

/** How a stage that ended colours its node; `abandoned` and `interrupted` stages run again. */
function finishedState(finished: string, runEnded: boolean): NodeState {
  switch (finished) {
    case 'succeeded':
    case 'failed':
    case 'cancelled':
      return finished;
    default:
      return runEnded ? 'cancelled' : 'pending';
  }
}

/**
 * The state of every node of `workflow`: its latest stage's, `pending` before it starts,
 * and `skipped` when the run ended without reaching it.
 *
 * @example nodeStates(workflow, stages, 'running') // { build: 'succeeded', test: 'running', deploy: 'pending' }
 */
export function nodeStates(workflow: Workflow, stages: readonly StageRecord[], run: Pick<RunRecord, 'status'>): Record<string, NodeState> {
  const runEnded = isTerminal(run.status);
  const latest = new Map(stages.map((stage) => [stage.node, stage]));
  const states: Record<string, NodeState> = {};
  for (const name of Object.keys(workflow.nodes)) {
    const stage = latest.get(name);
    if (stage === undefined) states[name] = runEnded ? 'skipped' : 'pending';
    else if (stage.status === 'running') states[name] = runEnded ? 'cancelled' : 'running';
    else states[name] = finishedState(stage.status, runEnded);
  }
  return states;
}

/**
 * Draws the run's workflow file (as it is now on disk) in `format`, coloured by stage state.
 *
 * @example await drawRunGraph(runs, runId, 'svg') // '<svg xmlns=…'
 */
export async function drawRunGraph(runs: RunService, id: string, format: GraphFormat): Promise<string> {
  const run = await runs.get(id);
  const [workflow, stages, { renderGraph }] = await Promise.all([
    loadWorkflow(run.workflowPath),
    runs.stages(id, { countTurns: false }),
    import('../../runs/workflow/render-graph.js'),
  ]);
  return renderGraph(workflow, format, nodeStates(workflow, stages, run));
}
