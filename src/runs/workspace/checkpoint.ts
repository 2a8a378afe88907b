/**
 * A checkpoint per stage: after a stage, commit what it changed in the run's working copy
 * on the run branch, descending from the previous checkpoint. A stage that changed nothing
 * costs one `git status`; one that did costs six git processes (status, update-index of the
 * reported paths, write-tree, then diff-tree beside commit-tree + update-ref), and `git
 * status`'s lstat of every file plus the spawns are the whole cost.
 * A stage that moved HEAD or the branch is folded in when its commits descend from the last checkpoint; otherwise the stage fails
 * with `WORKSPACE_HISTORY_REWRITTEN`, its files kept under a `refs/weft/rescued/…` ref.
 */
import { WeftError } from '../../core/errors.js';
import { changedFiles, totals } from './changed-files.js';
import { commitMessage, commitTree, snapshotTree } from './commit.js';
import { git, gitLine, isAncestor, readRef } from './git.js';
import { knownTree, rememberTree } from './known-trees.js';
import { nextNumberedRef } from './numbered-ref.js';
import type { CheckpointResult, GitIdentity, OpenedWorkspace } from './workspace-spec.js';

export interface CheckpointOptions {
  /** The stage's node id (e.g. `build`). */
  stageId: string;
  attempt: number;
  /** The subject line; default `weft: <stage>@<attempt>`. */
  message?: string;
  identity?: GitIdentity;
  date?: Date;
}

interface WorkingState {
  /** The commit HEAD names (whatever the stage checked out). */
  headCommit: string;
  /** The branch HEAD is on, or undefined when detached. */
  headBranch: string | undefined;
  /** Paths that differ from HEAD (tracked changes and untracked files, ignored ones left out). */
  paths: string[];
}

/** One `git status` read: HEAD's commit and branch, and every changed path. */
async function readWorkingState(topDir: string): Promise<WorkingState> {
  const { stdout } = await git(['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all', '--no-renames', '--ignore-submodules=none'], { cwd: topDir });
  let headCommit = '';
  let headBranch: string | undefined;
  const paths: string[] = [];
  const tokens = stdout.split('\0');
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index] ?? '';
    if (token.startsWith('# branch.oid ')) headCommit = token.slice('# branch.oid '.length);
    else if (token.startsWith('# branch.head ')) {
      const name = token.slice('# branch.head '.length);
      headBranch = name === '(detached)' ? undefined : name;
    } else if (token.startsWith('1 ')) paths.push(fieldsAfter(token, 8));
    else if (token.startsWith('2 ')) {
      paths.push(fieldsAfter(token, 9));
      index += 1;
    } else if (token.startsWith('u ')) paths.push(fieldsAfter(token, 10));
    else if (token.startsWith('? ')) paths.push(token.slice(2));
  }
  return { headCommit, headBranch, paths };
}

/** The text after the first `count` space-separated fields (a path may itself hold spaces). */
function fieldsAfter(token: string, count: number): string {
  let at = 0;
  for (let field = 0; field < count; field += 1) at = token.indexOf(' ', at) + 1;
  return token.slice(at);
}

/**
 * Commits the stage's changes on the run branch, or returns null when it changed nothing.
 * Moves `opened.head` to the new checkpoint.
 * @example const made = await checkpoint(opened, { stageId: 'build', attempt: 1 });
 */
export async function checkpoint(opened: OpenedWorkspace, options: CheckpointOptions): Promise<CheckpointResult | null> {
  const { topDir, workspace, head: expected } = opened;
  const branchRef = `refs/heads/${workspace.branch}`;
  const state = await readWorkingState(topDir);
  const onBranch = state.headBranch === workspace.branch;
  if (state.paths.length === 0 && state.headCommit === expected && onBranch) return null;
  const branchTip = onBranch ? state.headCommit : await readRef(topDir, branchRef);
  if (state.headCommit !== expected && !(await isAncestor(topDir, expected, state.headCommit))) {
    throw await rescue(opened, options, state, branchTip);
  }
  let tree: string;
  if (state.paths.length > 0) {
    // The paths status reported, and only those: no second walk of the tree, no pathspec magic.
    await git(['update-index', '--add', '--remove', '-z', '--stdin'], { cwd: topDir, input: `${state.paths.join('\0')}\0` });
    tree = await gitLine(['write-tree'], { cwd: topDir });
  } else {
    tree = await gitLine(['rev-parse', `${state.headCommit}^{tree}`], { cwd: topDir });
  }
  if (state.headCommit === expected && tree === (knownTree(opened) ?? (await gitLine(['rev-parse', `${expected}^{tree}`], { cwd: topDir })))) {
    if (!onBranch) await git(['symbolic-ref', 'HEAD', branchRef], { cwd: topDir });
    return null;
  }
  const subject = options.message ?? `weft: ${options.stageId}@${options.attempt}`;
  const message = commitMessage(subject, [
    ['Weft-Run', opened.runId],
    ['Weft-Stage', options.stageId],
    ['Weft-Attempt', String(options.attempt)],
  ]);
  // The summary (against the previous checkpoint, so the stage's own commits count) and the commit do not wait for each other.
  const [files, commit] = await Promise.all([
    changedFiles(topDir, expected, tree),
    (async () => {
      const made = await commitTree({ cwd: topDir, tree, parents: [state.headCommit], message, identity: options.identity, date: options.date });
      await git(['update-ref', '-m', `weft: checkpoint ${options.stageId}@${options.attempt}`, branchRef, made, branchTip ?? ''], { cwd: topDir });
      return made;
    })(),
  ]);
  if (!onBranch) await git(['symbolic-ref', 'HEAD', branchRef], { cwd: topDir });
  opened.head = commit;
  rememberTree(opened, commit, tree);
  return { commit, parent: expected, ...totals(files), files };
}

/**
 * The stage left HEAD on history that does not descend from the last checkpoint: keep its
 * files in a commit under `refs/weft/rescued/<run>/<n>`, put the run branch back on the
 * checkpoint, and say what happened.
 */
async function rescue(opened: OpenedWorkspace, options: CheckpointOptions, state: WorkingState, branchTip: string | undefined): Promise<WeftError> {
  const { topDir, workspace, head: expected, runId } = opened;
  const tree = await snapshotTree(topDir);
  const message = commitMessage(`weft: files of ${options.stageId}@${options.attempt}, kept when it rewrote the run branch`, [
    ['Weft-Run', runId],
    ['Weft-Stage', options.stageId],
    ['Weft-Attempt', String(options.attempt)],
  ]);
  const saved = await commitTree({ cwd: topDir, tree, parents: [state.headCommit], message, identity: options.identity, date: options.date });
  const rescuedRef = await nextNumberedRef(topDir, `refs/weft/rescued/${runId}`, saved);
  if (branchTip !== expected) {
    await git(['update-ref', '-m', 'weft: run branch back on its last checkpoint', `refs/heads/${workspace.branch}`, expected], { cwd: topDir });
  }
  return new WeftError(
    'WORKSPACE_HISTORY_REWRITTEN',
    `Stage ${options.stageId}@${options.attempt} left the workspace of run ${runId} on ${state.headCommit}${state.headBranch === undefined ? '' : ` (branch ${state.headBranch})`}, which does not descend from the run's last checkpoint ${expected} on ${workspace.branch}; a stage may commit on top of the checkpoint but not move it back or elsewhere. Its files are kept in ${saved} under ${rescuedRef} ('git show --stat ${rescuedRef}'); the run branch stays on ${expected}. Change the stage so it does not run 'git checkout <other>' or 'git reset' to an older commit, then retry it.`,
    { data: { runId, stageId: options.stageId, attempt: options.attempt, expected, found: state.headCommit, rescuedRef, rescuedCommit: saved } },
  );
}
