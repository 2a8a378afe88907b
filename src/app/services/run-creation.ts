/**
 * Making one run from a workflow file (`RunService.create`): the workflow loaded (confined
 * to the run's directory by real path when a surface acts for a remote client), the goal,
 * inputs, concurrency keys, parent and id resolved, the run's git workspace set up, then
 * the run written with its first status; a runner is woken for a queued run.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { WeftError } from '../../core/errors.js';
import { assertUlid, newId } from '../../core/ids.js';
import type { WorkspaceHost } from '../../runs/engine/run-files.js';
import type { CreateRunRequest } from '../../runs/model/create-run-request.js';
import { RUN_EVENT } from '../../runs/model/event-types.js';
import type { RunRecord } from '../../runs/model/run-record.js';
import { realPathInRunDir, refuseNulInPath } from '../../runs/run-dir-path.js';
import { resolveInputs } from '../../runs/run-inputs.js';
import type { RunStore } from '../../runs/store/run-store.js';
import { loadWorkflow, resolveConcurrency } from '../../runs/workflow/index.js';
import { setUpRunWorkspace } from './run-workspace-setup.js';
import { concurrencyTemplates, type ConcurrencyDefaultsReader } from './concurrency-defaults.js';

/** What creating a run needs of the run service. */
export interface RunCreationDeps {
  store: RunStore;
  wakeRunners: () => void;
  envFingerprint?: () => string;
  workspaces?: WorkspaceHost;
  /** `[run.concurrency]` of the settings in a run's directory, for workflows without keys; absent: none. */
  concurrencyDefaults?: ConcurrencyDefaultsReader;
  /** Reads a run by id or reference (the parent's, the run just made). */
  get: (ref: string) => Promise<RunRecord>;
}

export async function createRun(deps: RunCreationDeps, request: CreateRunRequest): Promise<RunRecord> {
  refuseNulInPath(request.cwd, "the run's directory (cwd)");
  refuseNulInPath(request.workflow, 'workflow');
  const cwd = resolve(request.cwd);
  const workflowPath = request.workflowInsideCwd
    ? await realPathInRunDir(cwd, request.workflow, 'workflow')
    : resolve(cwd, request.workflow);
  const workflow = await loadWorkflow(workflowPath);
  if (request.goal !== undefined && request.goalFile !== undefined) {
    throw new WeftError('RUN_INVALID_PARAMS', `Give either a goal or a goal file, not both.`);
  }
  const goal = request.goalFile !== undefined ? await readGoalFile(cwd, request.goalFile) : (request.goal ?? workflow.run.goal ?? '');
  const inputs = resolveInputs(workflow, request.inputs ?? {});
  const concurrency = resolveConcurrency(await concurrencyTemplates(workflow, cwd, deps.concurrencyDefaults), inputs, goal);
  const parentId = request.parentId === undefined ? undefined : (await deps.get(request.parentId)).id;
  const autoApprove = request.autoApprove ?? workflow.run.autoApprove ?? false;
  const id = request.id === undefined ? newId() : assertUlid(request.id, 'run id');
  const host = deps.workspaces;
  const setup =
    host === undefined
      ? { events: [] }
      : await setUpRunWorkspace({
          runId: id,
          cwd,
          spec: { ...workflow.run.workspace, ...request.workspace },
          dryRun: request.dryRun ?? false,
          ...(host.identity === undefined ? {} : { identity: host.identity }),
        });
  const initialStatus = request.start === false ? undefined : autoApprove ? ('queued' as const) : ('pending' as const);
  const created = await deps.store.createRun({
    id,
    workflow: workflow.name,
    workflowPath: workflow.file,
    goal,
    inputs,
    labels: { ...workflow.run.labels, ...request.labels },
    ...(parentId ? { parentId } : {}),
    autoApprove,
    dryRun: request.dryRun ?? false,
    ...((request.model ?? workflow.run.model) ? { model: request.model ?? workflow.run.model } : {}),
    cwd,
    ...(deps.envFingerprint === undefined ? {} : { envFingerprint: deps.envFingerprint() }),
    ...(request.budget === undefined ? {} : { budget: request.budget }),
    ...(request.priority === undefined ? {} : { priority: request.priority }),
    ...(setup.workspace === undefined ? {} : { workspace: setup.workspace }),
    ...(request.origin === undefined ? {} : { origin: request.origin }),
    ...(request.sandbox === undefined ? {} : { sandbox: request.sandbox }),
    ...(concurrency === undefined ? {} : { concurrency }),
    // A first checkpoint is recorded before any runner can take the run.
    ...(initialStatus === undefined || setup.events.length > 0 ? {} : { initialStatus }),
  });
  let run = created;
  if (setup.events.length > 0) {
    await deps.store.appendEvents(id, [
      ...setup.events,
      ...(initialStatus === undefined ? [] : [{ type: RUN_EVENT.runStatusChanged, payload: { from: 'submitted', to: initialStatus } }]),
    ]);
    run = await deps.get(id);
  }
  if (run.status === 'queued') deps.wakeRunners();
  return run;
}

async function readGoalFile(cwd: string, goalFile: string): Promise<string> {
  const path = await realPathInRunDir(cwd, goalFile, 'goal file');
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (error) {
    throw new WeftError(
      'RUN_INVALID_PARAMS',
      `goal file '${goalFile}' cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
      { cause: error },
    );
  }
}
