/**
 * `child` stages: create a child run of another workflow (parent link set, approval and
 * dry-run inherited), let a runner execute it, and wait until it ends. A resumed stage
 * attaches to the child it had already created; cancelling the stage cancels the child.
 */
import { ENGINE_EVENT, type ChildRunCreatedPayload } from '../../model/event-types.js';
import { isTerminal } from '../../model/run-status.js';
import { resolveInputs } from '../../run-inputs.js';
import { loadWorkflow, resolveArgs, type ChildNode } from '../../workflow/index.js';
import type { NodeExecutor, StageRun } from '../stage-context.js';
import { abortableDelay } from './abortable-delay.js';
import { forkRunBranch, pushRunBranch, type RunWorkspace } from '../../workspace/index.js';
import { gitLine } from '../../workspace/git.js';
import { traceparentIn } from '../../../core/telemetry/tracing.js';
import { PARENT_TRACE_LABEL } from '../run-tracing.js';

/** The creating stage's span, when traced: the child run's spans go under it. */
function parentTrace(stage: StageRun): Record<string, string> {
  const traceparent = traceparentIn(stage.traceContext);
  return traceparent === undefined ? {} : { [PARENT_TRACE_LABEL]: traceparent };
}

/**
 * A child of a run with a git workspace gets its own run branch, made at the parent's
 * current checkpoint (pushed when the parent has a remote), so it starts from the files the
 * parent's stages left; a child of a run that works in place works in place too.
 */
async function childWorkspace(stage: StageRun, childId: string): Promise<RunWorkspace | undefined> {
  const parent = stage.run.workspace;
  if (parent === undefined) return undefined;
  const repo = await gitLine(['rev-parse', '--show-toplevel'], { cwd: stage.workDir });
  const workspace = await forkRunBranch(repo, parent, `refs/heads/${parent.branch}`, childId);
  await pushRunBranch({ runId: childId, workspace, repoDir: repo });
  return workspace;
}

async function createChild(stage: StageRun & { node: ChildNode }): Promise<string> {
  const workflow = await loadWorkflow(stage.node.workflow);
  const inputs = resolveInputs(workflow, resolveArgs(stage.node.inputs, stage.context) as Record<string, unknown>);
  const id = stage.services.newId();
  const workspace = stage.run.dryRun ? undefined : await childWorkspace(stage, id);
  const child = await stage.services.runs.createChild({
    id,
    ...(workspace === undefined ? {} : { workspace }),
    workflow: workflow.name,
    workflowPath: workflow.file,
    goal: workflow.run.goal ?? stage.run.goal,
    inputs,
    labels: { ...workflow.run.labels, 'weft/parent-stage': stage.stageId, ...parentTrace(stage) },
    autoApprove: stage.run.autoApprove,
    dryRun: stage.run.dryRun,
    ...(stage.run.model ? { model: stage.run.model } : {}),
    cwd: stage.run.cwd,
    // The parent's runner executes its children: same creator, same environment.
    ...(stage.run.envFingerprint === undefined ? {} : { envFingerprint: stage.run.envFingerprint }),
    // A sandboxed run's children are sandboxed too (their own workflow's rules added), whatever their workflow says.
    ...(stage.services.sandbox() === undefined ? {} : { sandbox: { ...stage.run.sandbox, mode: 'os' as const } }),
    initialStatus: 'queued',
  });
  await stage.emit([
    { type: ENGINE_EVENT.childRunCreated, payload: { childId: child.id, workflow: workflow.name } satisfies ChildRunCreatedPayload },
  ]);
  return child.id;
}

export const executeChildNode: NodeExecutor<ChildNode> = async (stage) => {
  const { runs } = stage.services;
  const childId = stage.resume.childId ?? (await createChild(stage));
  stage.services.wakeRunners();
  for (;;) {
    const child = await runs.child(childId);
    if (!child) return { status: 'failed', error: `Child run ${childId} no longer exists` };
    if (isTerminal(child.status)) {
      const output = { runId: child.id, status: child.status, ...(child.reason ? { reason: child.reason } : {}) };
      return child.status === 'succeeded'
        ? { status: 'succeeded', output }
        : { status: 'failed', output, error: `Child run ${child.id} ${child.status}${child.reason ? `: ${child.reason}` : ''}` };
    }
    if (!(await abortableDelay(stage.services.pollMs, stage.signal))) {
      await runs.cancelChild(childId, `parent run ${stage.run.id} was cancelled`).catch(() => undefined);
      return { status: 'cancelled', output: { runId: childId }, error: 'Cancelled' };
    }
  }
};
