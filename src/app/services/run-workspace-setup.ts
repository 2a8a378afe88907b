/**
 * Where a new run works, decided once at creation: the request's workspace over the
 * workflow's `[run.workspace]` (field by field), the mode defaulting to `worktree` inside a
 * git repository and `in-place` outside one; for a git mode, the run branch is created now
 * (so two runs created in the same millisecond still get one branch each) and, with
 * `include_uncommitted`, the creator's changes become the run's first checkpoint.
 */
import { ENGINE_EVENT, type CheckpointCreatedPayload } from '../../runs/model/event-types.js';
import type { NewRunEvent } from '../../runs/model/run-event.js';
import {
  diffWorkspace,
  findRepository,
  prepareWorkspace,
  type GitIdentity,
  type RunWorkspace,
  type WorkspaceSpec,
} from '../../runs/workspace/index.js';
import { MAX_CHECKPOINT_FILES } from '../../runs/engine/run-files.js';
import { git } from '../../runs/workspace/git.js';

export interface RunWorkspaceSetup {
  workspace?: RunWorkspace;
  /** Events to record right after the run is created (the uncommitted-changes checkpoint). */
  events: NewRunEvent[];
}

/**
 * Whether `cwd` is a folder of a git repository's checked-out commit: only then does the
 * default give the run a worktree. Outside git, and in a folder git does not hold (ignored
 * or never committed, e.g. a scratch dir inside a checkout), the run works in place.
 */
async function committedFolder(cwd: string): Promise<boolean> {
  const found = await findRepository(cwd);
  if (found === undefined) return false;
  if (found.subdir === '') return true;
  const { code } = await git(['cat-file', '-e', `HEAD:${found.subdir}`], { cwd: found.top, okCodes: [1, 128] });
  return code === 0;
}

/**
 * Resolves the workspace of run `runId` created in `cwd`; in place needs nothing.
 * @example await setUpRunWorkspace({ runId, cwd: '/src/app', spec: {}, dryRun: false }) // { workspace: { mode: 'worktree', branch: 'weft/runs/…', … }, events: [] }
 */
export async function setUpRunWorkspace(params: {
  runId: string;
  cwd: string;
  spec: WorkspaceSpec;
  dryRun: boolean;
  identity?: GitIdentity;
}): Promise<RunWorkspaceSetup> {
  const { spec } = params;
  // A dry run has no side effects: no branch, no worktree.
  if (params.dryRun || spec.mode === 'in-place') return { events: [] };
  if (spec.mode === undefined && !(await committedFolder(params.cwd))) return { events: [] };
  const prepared = await prepareWorkspace({
    runId: params.runId,
    cwd: params.cwd,
    spec,
    ...(params.identity === undefined ? {} : { identity: params.identity }),
  });
  const first = prepared.uncommittedCheckpoint;
  if (first === undefined || prepared.workspace.sourceRepo === undefined) return { workspace: prepared.workspace, events: [] };
  const diff = await diffWorkspace(prepared.workspace.sourceRepo, prepared.workspace, {
    from: prepared.workspace.baseCommit,
    to: first,
    stat: true,
  });
  const payload: CheckpointCreatedPayload = {
    commit: first,
    parent: prepared.workspace.baseCommit,
    filesChanged: diff.filesChanged,
    linesAdded: diff.linesAdded,
    linesRemoved: diff.linesRemoved,
    files: diff.files
      .slice(0, MAX_CHECKPOINT_FILES)
      .map(({ path, status, added, removed, binary }) => ({ path, status, added, removed, binary })),
    pushed: false,
  };
  return { workspace: prepared.workspace, events: [{ type: ENGINE_EVENT.checkpointCreated, payload }] };
}
