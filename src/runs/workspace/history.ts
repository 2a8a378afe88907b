/**
 * Going back and branching off, without destroying anything: `rewind` moves the run branch
 * back to one of its checkpoints and keeps the abandoned tip under
 * `refs/weft/abandoned/<run>/<n>` (one atomic ref transaction); `fork` starts a new run's
 * branch at a checkpoint of another run.
 */
import { WeftError } from '../../core/errors.js';
import { git, isAncestor, readRef } from './git.js';
import { numberedRefs } from './numbered-ref.js';
import { runBranchName, type RunWorkspace } from './workspace-spec.js';

export interface RewindResult {
  /** The tip before the rewind. */
  from: string;
  to: string;
  /** Where the abandoned tip is kept; absent when the branch was already at `to`. */
  abandonedRef?: string;
}

/**
 * Moves the run branch back to `to`, a commit on it; the old tip stays reachable.
 * The run's working copy still holds the old files until `openWorkspace` resets it.
 * @example await rewindRunBranch(repo, runId, workspace, checkpointOfStage3)
 */
export async function rewindRunBranch(repoDir: string, runId: string, workspace: RunWorkspace, to: string): Promise<RewindResult> {
  const branchRef = `refs/heads/${workspace.branch}`;
  const tip = await readRef(repoDir, branchRef);
  if (tip === undefined) throw branchMissing(repoDir, runId, workspace);
  const target = await readRef(repoDir, to);
  if (target === undefined || !(await isAncestor(repoDir, target, tip))) {
    throw new WeftError(
      'WORKSPACE_INVALID',
      `Cannot rewind run ${runId} to '${to}': it is not a commit on its branch ${workspace.branch}. Pick a checkpoint the run made ('git log ${workspace.branch}').`,
      {
        data: { runId, to },
      },
    );
  }
  if (target === tip) return { from: tip, to: target };
  const prefix = `refs/weft/abandoned/${runId}`;
  for (let tries = 0; tries < 20; tries += 1) {
    const number = ((await numberedRefs(repoDir, prefix)).at(-1)?.number ?? 0) + 1;
    const abandonedRef = `${prefix}/${number}`;
    const transaction = `start\ncreate ${abandonedRef} ${tip}\nupdate ${branchRef} ${target} ${tip}\nprepare\ncommit\n`;
    const { code } = await git(['update-ref', '-m', `weft: rewind to ${target}`, '--stdin'], {
      cwd: repoDir,
      input: transaction,
      okCodes: [1, 128],
    });
    if (code === 0) return { from: tip, to: target, abandonedRef };
    if ((await readRef(repoDir, branchRef)) !== tip) break;
  }
  throw new WeftError(
    'WORKSPACE_GIT_FAILED',
    `Could not rewind run ${runId}: its branch ${workspace.branch} moved while rewinding. Retry.`,
    { data: { runId } },
  );
}

/**
 * Starts `newRunId`'s branch at `from` (a commit of the source run) and returns its
 * workspace record: same repository and remote, base = `from`.
 * @example const child = await forkRunBranch(repo, parent.workspace, tip, childRunId)
 */
export async function forkRunBranch(repoDir: string, workspace: RunWorkspace, from: string, newRunId: string): Promise<RunWorkspace> {
  const commit = await readRef(repoDir, from);
  if (commit === undefined)
    throw new WeftError('WORKSPACE_INVALID', `Cannot fork from '${from}': it is not a commit of ${repoDir}.`, { data: { from } });
  const branch = runBranchName(newRunId);
  const { code, stderr } = await git(['update-ref', '-m', `weft: fork from ${commit}`, `refs/heads/${branch}`, commit, ''], {
    cwd: repoDir,
    okCodes: [1, 128],
  });
  if (code !== 0) {
    throw new WeftError(
      'WORKSPACE_BRANCH_EXISTS',
      `Cannot fork into ${branch}: ${stderr.trim()}. Delete the existing branch ('git -C ${repoDir} branch -D ${branch}') or fork into another run.`,
      {
        data: { branch },
      },
    );
  }
  return { ...workspace, branch, baseCommit: commit };
}

function branchMissing(repoDir: string, runId: string, workspace: RunWorkspace): WeftError {
  return new WeftError(
    'WORKSPACE_BRANCH_NOT_FOUND',
    `Run ${runId}'s branch ${workspace.branch} is not in ${repoDir}; it may have been deleted ('git -C ${repoDir} for-each-ref refs/weft/' lists what weft kept).`,
    {
      data: { runId, branch: workspace.branch },
    },
  );
}
