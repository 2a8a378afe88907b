/**
 * Sending a run's checkpoints to its remote: the run branch (forced, since a rewind moves
 * it back; weft alone writes `weft/runs/<id>`) together with the run's kept refs
 * (`refs/weft/abandoned|rescued/<run>/*`), so a rewind on one host leaves its evidence on
 * the remote too. The force is leased: it only replaces the tip this host last saw on the
 * remote. A refusal keeps everything local and quotes the remote.
 */
import { WeftError } from '../../core/errors.js';
import { git, readRef, redactGitText, stderrTail } from './git.js';
import { numberedRefs } from './numbered-ref.js';
import type { RunWorkspace } from './workspace-spec.js';

export interface PushOptions {
  runId: string;
  workspace: RunWorkspace;
  /** The repository holding the run's refs on this host (`OpenedWorkspace.repoDir`, or `repositoryFor`). */
  repoDir: string;
}

/** Where this host keeps the run branch's tip as last fetched from or pushed to the remote. */
export function remoteTrackingRef(runId: string): string {
  return `refs/weft/remote/${runId}`;
}

/**
 * Pushes the run branch to `workspace.remoteUrl`; does nothing (returns false) without one.
 * @example await pushRunBranch({ runId, workspace, repoDir: opened.repoDir });
 */
export async function pushRunBranch(options: PushOptions): Promise<boolean> {
  const { runId, workspace, repoDir } = options;
  const remote = workspace.remoteUrl;
  if (remote === undefined) return false;
  const branchRef = `refs/heads/${workspace.branch}`;
  const tip = await readRef(repoDir, branchRef);
  if (tip === undefined)
    throw new WeftError(
      'WORKSPACE_BRANCH_NOT_FOUND',
      `Run ${runId}'s branch ${workspace.branch} is not in ${repoDir}, so there is nothing to push.`,
      { data: { runId } },
    );
  const kept = [
    ...(await numberedRefs(repoDir, `refs/weft/abandoned/${runId}`)),
    ...(await numberedRefs(repoDir, `refs/weft/rescued/${runId}`)),
  ];
  const refspecs = [`${branchRef}:${branchRef}`, ...kept.map(({ ref }) => `${ref}:${ref}`)];
  // Forced (a rewind moves the branch back), but only over the tip this host last saw there:
  // a runner that lost the run to another host cannot overwrite that host's checkpoints.
  const trackingRef = remoteTrackingRef(runId);
  const lastSeen = (await readRef(repoDir, trackingRef)) ?? '';
  const lease = `--force-with-lease=${branchRef}:${lastSeen}`;
  const { code, stderr } = await git(['push', '--porcelain', '--quiet', '--no-verify', lease, '--', remote, ...refspecs], {
    cwd: repoDir,
    okCodes: [1, 128],
  });
  if (code === 0) {
    await git(['update-ref', trackingRef, tip], { cwd: repoDir });
    return true;
  }
  const said = stderrTail(stderr);
  throw new WeftError(
    'WORKSPACE_PUSH_REFUSED',
    `The remote ${redactGitText(remote)} refused run ${runId}'s checkpoint ${tip} on ${workspace.branch}: ${said}. Nothing is lost: the checkpoint is kept in ${repoDir}. Fix the remote (access, branch protection, hooks) or the run's remote setting, then resume the run.`,
    { data: { runId, remote: redactGitText(remote), branch: workspace.branch, commit: tip, gitMessage: said } },
  );
}
