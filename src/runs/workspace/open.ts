/**
 * The runner's half, on any host: make sure the run's working copy exists at
 * `<root>/<run-id>` (a worktree of the source repository when it is on this host, else a
 * clone of the run's repository or remote), bring the run branch up to date from the remote,
 * and reset the working copy to the branch's last checkpoint, so a re-run stage never sees
 * the files of an attempt that died.
 */
import { existsSync } from 'node:fs';
import { lstat, mkdir, realpath, rm } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { WeftError } from '../../core/errors.js';
import { git, gitLine, isAncestor, readRef, redactGitText, stderrTail } from './git.js';
import { stampIndex } from './index-stamp.js';
import { rememberTree } from './known-trees.js';
import { remoteTrackingRef } from './push.js';
import { checkedRunId, type OpenedWorkspace, type RunWorkspace } from './workspace-spec.js';

export interface OpenOptions {
  runId: string;
  workspace: RunWorkspace;
  /** The folder holding every run's working copy on this host. */
  root: string;
}

/** `<root>/<run-id>`, refusing anything that would land outside the root. */
export async function workspaceDir(root: string, runId: string): Promise<string> {
  await mkdir(root, { recursive: true });
  const realRoot = await realpath(root);
  const dir = resolve(realRoot, checkedRunId(runId));
  if (!dir.startsWith(realRoot + sep))
    throw new WeftError('WORKSPACE_INVALID', `The workspace of run ${runId} would lie outside ${realRoot}.`);
  return dir;
}

/**
 * Opens the run's working copy on this host and resets it to the last checkpoint.
 * @example const opened = await openWorkspace({ runId, workspace: run.workspace, root });
 */
export async function openWorkspace(options: OpenOptions): Promise<OpenedWorkspace> {
  const { runId, workspace } = options;
  const topDir = await workspaceDir(options.root, runId);
  const local = workspace.mode === 'worktree' && workspace.sourceRepo !== undefined && (await holdsBranch(workspace.sourceRepo, workspace));
  const repoDir = local ? (workspace.sourceRepo as string) : topDir;
  if (local) await ensureWorktree(repoDir, topDir, workspace);
  else await ensureClone(topDir, workspace, runId);
  const head = await syncFromRemote(repoDir, workspace, runId);
  await resetTo(topDir, workspace.branch, head);
  const opened: OpenedWorkspace = {
    runId,
    workspace,
    topDir,
    workDir: workspace.subdir === '' ? topDir : join(topDir, ...workspace.subdir.split('/')),
    repoDir,
    head,
  };
  rememberTree(opened, head, await gitLine(['rev-parse', `${head}^{tree}`], { cwd: topDir }));
  stampIndex(opened);
  return opened;
}

/** Whether `repo` exists here and is the run's source (its run branch, or its base when a remote holds the branch). */
async function holdsBranch(repo: string, workspace: RunWorkspace): Promise<boolean> {
  if (!existsSync(repo)) return false;
  if ((await readRef(repo, `refs/heads/${workspace.branch}`)) !== undefined) return true;
  return false;
}

async function isWorkingCopyOf(dir: string, commonDir: string | undefined): Promise<boolean> {
  if ((await lstat(dir).catch(() => undefined))?.isDirectory() !== true || !existsSync(join(dir, '.git'))) return false;
  const { code, stdout } = await git(['rev-parse', '--path-format=absolute', '--git-common-dir', '--show-toplevel'], {
    cwd: dir,
    okCodes: [128],
  });
  if (code !== 0) return false;
  const [common = '', top = ''] = stdout.split('\n');
  if ((await realpath(top).catch(() => '')) !== (await realpath(dir))) return false;
  return commonDir === undefined || (await realpath(common).catch(() => '')) === commonDir;
}

/** Worktree changes of one repository, one at a time in this process: `git worktree add` reads the other entries while a concurrent one is half-written. */
const worktreeQueues = new Map<string, Promise<unknown>>();

function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = worktreeQueues.get(key) ?? Promise.resolve();
  const next = previous.then(work, work);
  const settled = next.catch(() => undefined);
  worktreeQueues.set(key, settled);
  void settled.then(() => {
    if (worktreeQueues.get(key) === settled) worktreeQueues.delete(key);
  });
  return next;
}

/** Another process adding a worktree at the same moment: its half-written entry is read as broken. */
const CONCURRENT_ADD = /failed to read .*worktrees\/|worktrees\/[^ ]+ (?:does not exist|is not a directory)/;

async function ensureWorktree(repo: string, dir: string, workspace: RunWorkspace): Promise<void> {
  const commonDir = await realpath(await gitLine(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: repo }));
  if (await isWorkingCopyOf(dir, commonDir)) return;
  await oneAtATime(commonDir, async () => {
    await removeLeftover(dir);
    await git(['worktree', 'prune'], { cwd: repo });
    for (let attempt = 1; ; attempt += 1) {
      const { code, stderr } = await git(['worktree', 'add', '--no-checkout', '--', dir, workspace.branch], {
        cwd: repo,
        okCodes: [128, 255],
      });
      if (code === 0) return;
      if (attempt >= 5 || !CONCURRENT_ADD.test(stderr)) {
        throw new WeftError(
          'WORKSPACE_GIT_FAILED',
          `Could not add a worktree for ${workspace.branch} at ${dir} (in ${repo}): ${stderrTail(stderr)}. Check the disk and 'git -C ${repo} worktree list'.`,
          {
            data: { repo, dir, branch: workspace.branch },
          },
        );
      }
      await removeLeftover(dir);
      // Give the other process's `worktree add` time to finish writing its entry.
      await new Promise((resolve) => setTimeout(resolve, 25 * attempt));
    }
  });
}

async function ensureClone(dir: string, workspace: RunWorkspace, runId: string): Promise<void> {
  if (await isWorkingCopyOf(dir, undefined)) return;
  const source = workspace.mode === 'clone' ? workspace.repoUrl : workspace.remoteUrl;
  if (source === undefined) {
    throw new WeftError(
      'WORKSPACE_NOT_ON_HOST',
      `Run ${runId} works in a worktree of ${workspace.sourceRepo ?? 'a repository'} on the host that created it, which is not here (or lost the branch ${workspace.branch}), and it has no remote to fetch its checkpoints from. Resume it on the creating host, or create such runs with [run.workspace] remote = "<name or URL>".`,
      { data: { runId, sourceRepo: workspace.sourceRepo, branch: workspace.branch } },
    );
  }
  await removeLeftover(dir);
  await git(['clone', '--no-checkout', '--origin', 'origin', '--', source, dir], {
    cwd: resolve(dir, '..'),
    failure: {
      code: 'WORKSPACE_FETCH_FAILED',
      what: `Could not clone ${redactGitText(source)} for run ${runId}`,
      hint: 'Check the URL or path, and that this host can reach it and has credentials for it.',
    },
  });
  for (const [key, value] of [
    ['core.untrackedCache', 'true'],
    ['index.version', '4'],
  ] as const) {
    await git(['config', key, value], { cwd: dir });
  }
}

/** A half-made working copy (a crash during clone or worktree add) is weft's own; it goes. */
async function removeLeftover(dir: string): Promise<void> {
  const entry = await lstat(dir).catch(() => undefined);
  if (entry === undefined) return;
  // A link planted where the working copy goes: remove the link, never what it points at.
  if (!entry.isDirectory()) return void (await rm(dir, { force: true }));
  const parent = await realpath(resolve(dir, '..'));
  const real = await realpath(dir);
  if (relative(parent, real).includes(sep) || real === parent)
    throw new WeftError('WORKSPACE_INVALID', `Refusing to remove ${real}: it is not a folder directly under ${parent}.`);
  await rm(real, { recursive: true, force: true });
}

/**
 * The run branch's tip after taking what the remote holds: the remote's tip wins when it
 * descends from ours (another host made later checkpoints); ours stays when it is ahead (a
 * push has yet to happen). Creates the branch at the base when neither has it yet.
 */
async function syncFromRemote(repoDir: string, workspace: RunWorkspace, runId: string): Promise<string> {
  const branchRef = `refs/heads/${workspace.branch}`;
  const trackingRef = remoteTrackingRef(runId);
  let remoteTip: string | undefined;
  const fetchFrom = workspace.remoteUrl;
  if (fetchFrom !== undefined) {
    const { code, stderr } = await git(['fetch', '--no-tags', '--quiet', '--', fetchFrom, `+${branchRef}:${trackingRef}`], {
      cwd: repoDir,
      okCodes: [1, 128],
    });
    if (code === 0) remoteTip = await readRef(repoDir, trackingRef);
    else if (/couldn't find remote ref/i.test(stderr)) await git(['update-ref', '-d', trackingRef], { cwd: repoDir });
    else if (!/couldn't find remote ref|not our ref|no such ref/i.test(stderr)) {
      throw new WeftError(
        'WORKSPACE_FETCH_FAILED',
        `Could not fetch ${workspace.branch} of run ${runId} from ${redactGitText(fetchFrom)}: ${redactGitText(stderr.trim())}. Check the remote is reachable from this host, then resume the run.`,
        {
          data: { runId, remote: redactGitText(fetchFrom) },
        },
      );
    }
  }
  const localTip = await readRef(repoDir, branchRef);
  const tip = await pickTip(repoDir, workspace, runId, localTip, remoteTip);
  if (tip !== localTip) await git(['update-ref', '-m', 'weft: run branch from the remote', branchRef, tip], { cwd: repoDir });
  return tip;
}

async function pickTip(
  repoDir: string,
  workspace: RunWorkspace,
  runId: string,
  local: string | undefined,
  remote: string | undefined,
): Promise<string> {
  if (local !== undefined && remote !== undefined) {
    if (await isAncestor(repoDir, local, remote)) return remote;
    if (await isAncestor(repoDir, remote, local)) return local;
    throw new WeftError(
      'WORKSPACE_HISTORY_REWRITTEN',
      `The run branch ${workspace.branch} of run ${runId} differs here (${local}) and on the remote (${remote}), and neither descends from the other. Keep the right one with 'git update-ref', then resume the run.`,
      { data: { runId, local, remote } },
    );
  }
  const tip = remote ?? local;
  if (tip !== undefined) return tip;
  if ((await readRef(repoDir, workspace.baseCommit)) === undefined) {
    await git(['fetch', '--no-tags', '--quiet', 'origin', workspace.baseCommit], {
      cwd: repoDir,
      failure: {
        code: 'WORKSPACE_BASE_NOT_FOUND',
        what: `The base ${workspace.baseCommit} of run ${runId} is not in its repository`,
        hint: 'The commit may have been removed; create the run again from an existing base.',
      },
    });
  }
  return workspace.baseCommit;
}

/**
 * The working copy becomes exactly the checkpoint: tracked files reset, untracked ones
 * removed. Ignored files stay: they are never part of a checkpoint (dependencies, build
 * caches, local secrets), and removing them would make every resume reinstall them.
 */
async function resetTo(topDir: string, branch: string, tip: string): Promise<void> {
  // A stage's git killed mid-command leaves its lock; nothing else works in this copy now.
  const lock = await gitLine(['rev-parse', '--path-format=absolute', '--git-path', 'index.lock'], { cwd: topDir });
  await rm(lock, { force: true });
  const current = await git(['symbolic-ref', '--quiet', 'HEAD'], { cwd: topDir, okCodes: [1, 128] });
  if (current.stdout.trim() !== `refs/heads/${branch}`) await git(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { cwd: topDir });
  await git(['reset', '--hard', '--quiet', tip], { cwd: topDir });
  await git(['clean', '-ffdq'], { cwd: topDir });
}
