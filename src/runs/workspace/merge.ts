/**
 * Bringing a run home: its branch into the user's branch, fast-forward when possible, else
 * a merge commit computed with `git merge-tree --write-tree` (no working tree, no index).
 * A conflict touches nothing and lists the files. When the target branch is checked out in
 * some working tree, that tree is moved with `git merge --ff-only` to the result, so git's
 * own checks refuse to overwrite any local change; otherwise only the ref moves, and only
 * if nobody moved it meanwhile.
 */
import { WeftError } from '../../core/errors.js';
import { commitMessage, commitTree } from './commit.js';
import { git, isAncestor, readRef, stderrTail } from './git.js';
import type { GitIdentity, RunWorkspace } from './workspace-spec.js';

export interface MergeOptions {
  runId: string;
  workspace: RunWorkspace;
  repoDir: string;
  /** The branch to merge into; default the branch the run was created from. */
  into?: string;
  identity?: GitIdentity;
  date?: Date;
}

export interface MergeResult {
  kind: 'fast-forward' | 'merge-commit' | 'up-to-date';
  into: string;
  /** The target branch's commit after the merge. */
  commit: string;
  /** The target branch's commit before. */
  previous: string;
  /** The working tree that was updated, when the target was checked out. */
  updatedWorktree?: string;
}

/**
 * Merges the run branch into `into`.
 * @example await mergeRunBranch({ runId, workspace, repoDir: workspace.sourceRepo!, into: 'main' })
 */
export async function mergeRunBranch(options: MergeOptions): Promise<MergeResult> {
  const { runId, workspace, repoDir } = options;
  const into = options.into ?? workspace.sourceBranch;
  if (into === undefined) {
    throw new WeftError(
      'WORKSPACE_INVALID',
      `Run ${runId} was created on a detached HEAD, so there is no branch to merge into by default. Name one (--into <branch>).`,
      { data: { runId } },
    );
  }
  const intoRef = `refs/heads/${into.replace(/^refs\/heads\//, '')}`;
  const target = await readRef(repoDir, intoRef);
  if (target === undefined) {
    throw new WeftError(
      'WORKSPACE_BRANCH_NOT_FOUND',
      `There is no branch '${into}' in ${repoDir} to merge run ${runId} into. List branches with 'git -C ${repoDir} branch'.`,
      { data: { into } },
    );
  }
  const runTip = await readRef(repoDir, `refs/heads/${workspace.branch}`);
  if (runTip === undefined)
    throw new WeftError('WORKSPACE_BRANCH_NOT_FOUND', `Run ${runId}'s branch ${workspace.branch} is not in ${repoDir}.`, {
      data: { runId },
    });
  if (await isAncestor(repoDir, runTip, target)) return { kind: 'up-to-date', into, commit: target, previous: target };
  let result: string;
  let kind: MergeResult['kind'];
  if (await isAncestor(repoDir, target, runTip)) {
    result = runTip;
    kind = 'fast-forward';
  } else {
    const tree = await mergeTree(repoDir, runId, into, target, runTip);
    const message = commitMessage(`Merge run ${runId} (${workspace.branch}) into ${into}`, [['Weft-Run', runId]]);
    result = await commitTree({ cwd: repoDir, tree, parents: [target, runTip], message, identity: options.identity, date: options.date });
    kind = 'merge-commit';
  }
  const worktree = await worktreeWithBranch(repoDir, intoRef);
  if (worktree === undefined) {
    await git(['update-ref', '-m', `weft: merge run ${runId}`, intoRef, result, target], { cwd: repoDir });
    return { kind, into, commit: result, previous: target };
  }
  const moved = await git(['merge', '--ff-only', '--no-edit', '--quiet', result], { cwd: worktree, okCodes: [1, 128] });
  if (moved.code !== 0) {
    throw new WeftError(
      'WORKSPACE_MERGE_CONFLICT',
      `Run ${runId}'s result could not be applied to ${into}, which is checked out in ${worktree}: ${stderrTail(moved.stderr)}. Nothing was changed. Commit or stash your changes there, then merge again.`,
      { data: { runId, into, worktree, files: filesGitWouldOverwrite(moved.stderr) } },
    );
  }
  return { kind, into, commit: result, previous: target, updatedWorktree: worktree };
}

async function mergeTree(repoDir: string, runId: string, into: string, target: string, runTip: string): Promise<string> {
  const { code, stdout, stderr } = await git(['merge-tree', '--write-tree', '-z', '--name-only', '--no-messages', target, runTip], {
    cwd: repoDir,
    okCodes: [1],
  });
  const [tree = '', ...rest] = stdout.split('\0');
  if (code === 0) return tree;
  if (tree === '' || !/^[0-9a-f]{40}$/.test(tree))
    throw new WeftError(
      'WORKSPACE_GIT_FAILED',
      `git merge-tree failed for run ${runId}: ${stderrTail(stderr)}. Git 2.38 or later is needed to merge runs.`,
    );
  const files = [...new Set(rest.filter((name) => name !== ''))];
  throw new WeftError(
    'WORKSPACE_MERGE_CONFLICT',
    `Run ${runId} conflicts with ${into} in ${files.length} file(s): ${files.join(', ')}. Nothing was changed. Merge it yourself ('git merge ${`weft/runs/${runId}`}' on ${into}) to resolve them, or rewind the run and try again.`,
    { data: { runId, into, files } },
  );
}

/** The files listed under git's "would be overwritten by merge" (one per tab-indented line). */
function filesGitWouldOverwrite(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('\t'))
    .map((line) => line.trim());
}

/** The working tree (main or linked) that has `ref` checked out, if any. */
async function worktreeWithBranch(repoDir: string, ref: string): Promise<string | undefined> {
  const { stdout } = await git(['worktree', 'list', '--porcelain', '-z'], { cwd: repoDir });
  let path: string | undefined;
  for (const token of stdout.split('\0')) {
    if (token.startsWith('worktree ')) path = token.slice('worktree '.length);
    else if (token === `branch ${ref}` && path !== undefined) return path;
  }
  return undefined;
}
