/**
 * A checkpoint per stage: after a stage, commit what it changed in the run's working copy
 * on the run branch, descending from the previous checkpoint. The cost is git's walk of the
 * tree (one `lstat` per tracked file, in `git add -A`) plus process starts, so there are as
 * few as possible in a row: `add -A` (HEAD read from its files meanwhile), `write-tree`, then the commit
 * object and the ref move beside the numstat summary — those three processes started while
 * `write-tree` runs, fed through stdin once the tree is known. The run's index is a split
 * index, so each write is the changed entries, not all of them. A stage that changed
 * nothing makes no commit and costs `add -A` only, when the index is the one the last
 * checkpoint left (see `index-stamp.ts`).
 * A stage that moved HEAD or the branch is folded in when its commits descend from the last checkpoint; otherwise the stage fails
 * with `WORKSPACE_HISTORY_REWRITTEN`, its files kept under a `refs/weft/rescued/…` ref.
 */
import { WeftError } from '../../core/errors.js';
import { DIFF_TREE_STDIN, parseDiffTreeStdin, totals } from './changed-files.js';
import { commitMessage, commitObjectText, commitTree, snapshotTree } from './commit.js';
import { git, gitLine, isAncestor, readRef, startGit, type StartedGit } from './git.js';
import { readHeadFile } from './head-file.js';
import { forgetIndex, indexUntouched, stampIndex } from './index-stamp.js';
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

/**
 * For the commands that write the run's index: a split index writes only the entries that
 * changed (≈ 9 ms instead of 13–17 for 10,000 files); the shared part is rewritten when a
 * fifth of it changed. Only ever the run's own working copy, never the user's checkout.
 */
const INDEX_WRITE = ['-c', 'core.splitIndex=true'] as const;

interface HeadState {
  /** The commit HEAD names (whatever the stage checked out). */
  headCommit: string;
  /** The branch HEAD is on, or undefined when detached. */
  headBranch: string | undefined;
}

/** HEAD's commit and branch: from the files when they are plain, else from one `rev-parse`. */
async function readHead(topDir: string): Promise<HeadState> {
  const fromFiles = readHeadFile(topDir);
  if (fromFiles !== undefined) return fromFiles;
  const { stdout } = await git(['rev-parse', 'HEAD', '--symbolic-full-name', 'HEAD'], { cwd: topDir });
  const [headCommit = '', name = ''] = stdout.split('\n');
  return { headCommit, headBranch: name.startsWith('refs/heads/') ? name.slice('refs/heads/'.length) : undefined };
}

/** The processes that finish a checkpoint, started before the tree is known. */
interface Finishing {
  hashObject: StartedGit;
  updateRef: StartedGit;
  diffTree: StartedGit;
}

function startFinishing(topDir: string, options: CheckpointOptions): Finishing {
  return {
    hashObject: startGit(['hash-object', '-t', 'commit', '-w', '--stdin'], { cwd: topDir }),
    updateRef: startGit(['update-ref', '-m', `weft: checkpoint ${options.stageId}@${options.attempt}`, '--stdin'], { cwd: topDir }),
    diffTree: startGit(DIFF_TREE_STDIN, { cwd: topDir }),
  };
}

/**
 * Commits the stage's changes on the run branch, or returns null when it changed nothing.
 * Moves `opened.head` to the new checkpoint.
 * @example const made = await checkpoint(opened, { stageId: 'build', attempt: 1 });
 */
export async function checkpoint(opened: OpenedWorkspace, options: CheckpointOptions): Promise<CheckpointResult | null> {
  const { topDir, workspace, head: expected } = opened;
  const branchRef = `refs/heads/${workspace.branch}`;
  const untouched = indexUntouched(opened);
  // `add -A` stages what `git status --untracked-files=all` would list (ignored files left out), in one walk.
  const [added, state] = await Promise.all([git([...INDEX_WRITE, 'add', '--all', '--verbose'], { cwd: topDir }), readHead(topDir)]);
  const onBranch = state.headBranch === workspace.branch;
  if (added.stdout === '' && untouched && state.headCommit === expected && onBranch) {
    stampIndex(opened);
    return null;
  }
  // A stage that staged or committed by itself prints nothing here: it pays the spawns in a row, like a stage that changed nothing.
  let finishing = added.stdout !== '' || state.headCommit !== expected ? startFinishing(topDir, options) : undefined;
  try {
    const tree = await gitLine([...INDEX_WRITE, 'write-tree'], { cwd: topDir });
    const previousTree = knownTree(opened) ?? (await gitLine(['rev-parse', `${expected}^{tree}`], { cwd: topDir }));
    if (state.headCommit === expected && tree === previousTree) {
      if (!onBranch) await git(['symbolic-ref', 'HEAD', branchRef], { cwd: topDir });
      stampIndex(opened);
      return null;
    }
    const branchTip = onBranch ? state.headCommit : await readRef(topDir, branchRef);
    if (state.headCommit !== expected && !(await isAncestor(topDir, expected, state.headCommit))) {
      forgetIndex(opened);
      throw await rescue(opened, options, state, branchTip);
    }
    const subject = options.message ?? `weft: ${options.stageId}@${options.attempt}`;
    const message = commitMessage(subject, [
      ['Weft-Run', opened.runId],
      ['Weft-Stage', options.stageId],
      ['Weft-Attempt', String(options.attempt)],
    ]);
    const started = finishing ?? startFinishing(topDir, options);
    finishing = undefined;
    const commitOptions = { tree, parents: [state.headCommit], message, identity: options.identity, date: options.date };
    const text = commitObjectText(commitOptions);
    if (text === undefined) started.hashObject.abort();
    // The summary (against the previous checkpoint, so the stage's own commits count) and the commit do not wait for each other.
    const [files, commit] = await Promise.all([
      started.diffTree.finish(`${previousTree} ${tree}\n`).then(({ stdout }) => parseDiffTreeStdin(stdout)),
      (async () => {
        const made =
          text === undefined ? await commitTree({ cwd: topDir, ...commitOptions }) : (await started.hashObject.finish(text)).stdout.trim();
        await started.updateRef.finish(
          branchTip === undefined ? `create ${branchRef} ${made}\n` : `update ${branchRef} ${made} ${branchTip}\n`,
        );
        return made;
      })(),
    ]);
    if (!onBranch) await git(['symbolic-ref', 'HEAD', branchRef], { cwd: topDir });
    opened.head = commit;
    rememberTree(opened, commit, tree);
    stampIndex(opened);
    return { commit, parent: expected, ...totals(files), files };
  } finally {
    if (finishing !== undefined) for (const started of Object.values(finishing)) started.abort();
  }
}

/**
 * The stage left HEAD on history that does not descend from the last checkpoint: keep its
 * files in a commit under `refs/weft/rescued/<run>/<n>`, put the run branch back on the
 * checkpoint, and say what happened.
 */
async function rescue(
  opened: OpenedWorkspace,
  options: CheckpointOptions,
  state: HeadState,
  branchTip: string | undefined,
): Promise<WeftError> {
  const { topDir, workspace, head: expected, runId } = opened;
  const tree = await snapshotTree(topDir);
  const message = commitMessage(`weft: files of ${options.stageId}@${options.attempt}, kept when it rewrote the run branch`, [
    ['Weft-Run', runId],
    ['Weft-Stage', options.stageId],
    ['Weft-Attempt', String(options.attempt)],
  ]);
  const saved = await commitTree({
    cwd: topDir,
    tree,
    parents: [state.headCommit],
    message,
    identity: options.identity,
    date: options.date,
  });
  const rescuedRef = await nextNumberedRef(topDir, `refs/weft/rescued/${runId}`, saved);
  if (branchTip !== expected) {
    await git(['update-ref', '-m', 'weft: run branch back on its last checkpoint', `refs/heads/${workspace.branch}`, expected], {
      cwd: topDir,
    });
  }
  return new WeftError(
    'WORKSPACE_HISTORY_REWRITTEN',
    `Stage ${options.stageId}@${options.attempt} left the workspace of run ${runId} on ${state.headCommit}${state.headBranch === undefined ? '' : ` (branch ${state.headBranch})`}, which does not descend from the run's last checkpoint ${expected} on ${workspace.branch}; a stage may commit on top of the checkpoint but not move it back or elsewhere. Its files are kept in ${saved} under ${rescuedRef} ('git show --stat ${rescuedRef}'); the run branch stays on ${expected}. Change the stage so it does not run 'git checkout <other>' or 'git reset' to an older commit, then retry it.`,
    {
      data: {
        runId,
        stageId: options.stageId,
        attempt: options.attempt,
        expected,
        found: state.headCommit,
        rescuedRef,
        rescuedCommit: saved,
      },
    },
  );
}
