/**
 * Removing run workspaces: one run's working copy (and its branch and kept refs, unless the
 * run keeps its branch), and the working copies under a root whose run no longer exists —
 * what `weft doctor` reports and a worker removes when it starts. A stale one found
 * without its run record keeps its branch: weft no longer knows whether it was wanted.
 */
import { existsSync } from 'node:fs';
import { lstat, readdir, readFile, realpath, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { WeftError } from '../../core/errors.js';
import { git, readRef } from './git.js';
import { workspaceDir } from './open.js';
import type { RunWorkspace } from './workspace-spec.js';

export interface RemoveOptions {
  runId: string;
  workspace: RunWorkspace;
  root: string;
  /** Keep the branch even if the run does not ask to (e.g. it was merged). */
  keepBranch?: boolean;
}

/** What `removeWorkspace` did. */
export interface RemoveResult {
  removedDir?: string;
  deletedBranch?: string;
}

/**
 * Removes the run's working copy on this host, and its branch unless kept.
 * @example await removeWorkspace({ runId, workspace, root })
 */
export async function removeWorkspace(options: RemoveOptions): Promise<RemoveResult> {
  const { runId, workspace } = options;
  const dir = await workspaceDir(options.root, runId);
  const result: RemoveResult = {};
  if ((await lstat(dir).catch(() => undefined)) !== undefined) {
    await removeWorkingCopy(dir);
    result.removedDir = dir;
  }
  const repo = workspace.mode === 'worktree' ? workspace.sourceRepo : undefined;
  if (repo !== undefined && existsSync(repo) && !(options.keepBranch ?? workspace.keepBranch)) {
    const branchRef = `refs/heads/${workspace.branch}`;
    const tip = await readRef(repo, branchRef);
    if (tip !== undefined) {
      await git(['update-ref', '-d', branchRef, tip], { cwd: repo });
      result.deletedBranch = workspace.branch;
    }
    for (const kind of ['abandoned', 'rescued', 'remote']) await deleteRefsUnder(repo, `refs/weft/${kind}/${runId}/`);
    await deleteRefsUnder(repo, `refs/weft/remote/${runId}`);
  }
  return result;
}

async function deleteRefsUnder(repo: string, prefix: string): Promise<void> {
  const { stdout } = await git(['for-each-ref', '--format=delete %(refname)', '--', prefix], { cwd: repo });
  if (stdout.trim() !== '') await git(['update-ref', '--stdin'], { cwd: repo, input: stdout });
}

/** The repository a linked worktree belongs to (its common git dir), read from its `.git` file. */
async function ownerOfWorktree(dir: string): Promise<string | undefined> {
  const dotGit = join(dir, '.git');
  const text = await readFile(dotGit, 'utf8').catch(() => undefined);
  const match = text === undefined ? null : /^gitdir: (.+)$/m.exec(text);
  if (match === null) return undefined;
  const gitdir = isAbsolute(match[1] ?? '') ? (match[1] as string) : resolve(dir, match[1] as string);
  const common = resolve(dirname(dirname(gitdir)));
  return existsSync(common) ? common : undefined;
}

/** A worktree leaves the repository's worktree list too; a clone (or anything else weft left) is just deleted. */
async function removeWorkingCopy(dir: string): Promise<void> {
  if ((await lstat(dir).catch(() => undefined))?.isDirectory() !== true) return void (await rm(dir, { force: true }));
  const owner = await ownerOfWorktree(dir);
  if (owner !== undefined) {
    const { code } = await git(['worktree', 'remove', '--force', '--force', '--', dir], { cwd: owner, okCodes: [128] });
    if (code === 0 && !existsSync(dir)) return;
  }
  await rm(dir, { recursive: true, force: true });
  if (owner !== undefined) await git(['worktree', 'prune'], { cwd: owner, okCodes: [128] });
}

export interface StaleWorkspace {
  runId: string;
  path: string;
  kind: 'worktree' | 'clone' | 'other';
}

/**
 * Working copies under `root` whose run is not known (any more).
 * @example await findStaleWorkspaces(root, async (id) => (await store.getRun(id)) !== undefined)
 */
export async function findStaleWorkspaces(
  root: string,
  isRunKnown: (runId: string) => boolean | Promise<boolean>,
): Promise<StaleWorkspace[]> {
  if (!existsSync(root)) return [];
  const realRoot = await realpath(root);
  const stale: StaleWorkspace[] = [];
  for (const entry of await readdir(realRoot, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    if (await isRunKnown(entry.name)) continue;
    const path = join(realRoot, entry.name);
    const kind = (await ownerOfWorktree(path)) !== undefined ? 'worktree' : existsSync(join(path, '.git')) ? 'clone' : 'other';
    stale.push({ runId: entry.name, path, kind });
  }
  return stale.sort((left, right) => (left.runId < right.runId ? -1 : 1));
}

/**
 * Removes what `findStaleWorkspaces` finds; branches stay.
 * @example const removed = await pruneStaleWorkspaces(root, isRunKnown)
 */
export async function pruneStaleWorkspaces(
  root: string,
  isRunKnown: (runId: string) => boolean | Promise<boolean>,
): Promise<StaleWorkspace[]> {
  const stale = await findStaleWorkspaces(root, isRunKnown);
  for (const entry of stale) await removeWorkingCopy(entry.path);
  return stale;
}

/**
 * The repository holding a run's refs on this host: the source repository (worktree mode)
 * or the run's clone under `root`; `WORKSPACE_NOT_ON_HOST` when neither is here.
 */
export async function repositoryFor(workspace: RunWorkspace, root: string, runId: string): Promise<string> {
  if (workspace.mode === 'worktree' && workspace.sourceRepo !== undefined && existsSync(workspace.sourceRepo)) return workspace.sourceRepo;
  const dir = await workspaceDir(root, runId);
  if (existsSync(join(dir, '.git'))) return dir;
  throw new WeftError(
    'WORKSPACE_NOT_ON_HOST',
    `Run ${runId}'s repository is not on this host (${workspace.mode === 'worktree' ? workspace.sourceRepo : dir}). Ask the host that ran it, or give such runs a remote.`,
    { data: { runId } },
  );
}
