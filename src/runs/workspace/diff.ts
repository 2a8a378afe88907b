/**
 * What a run changed: the whole run (its base to the run branch's tip) or one checkpoint
 * (against its first parent), as a per-file stat list and, unless only the stat is asked,
 * unified diff text (bounded; binary files say so rather than dump bytes). No external diff
 * drivers or textconv filters run: a stage could have planted them.
 */
import { changedFiles, totals } from './changed-files.js';
import { git, gitLine } from './git.js';
import type { ChangedFile, RunWorkspace } from './workspace-spec.js';

export interface DiffOptions {
  /** Default: the run's base commit (or `to`'s parent when `to` is given without `from`). */
  from?: string;
  /** Default: the run branch's tip. */
  to?: string;
  /** Only the per-file stat, no text. */
  stat?: boolean;
  /** Cut the text at this many bytes (default 8 MiB). */
  maxBytes?: number;
}

export interface WorkspaceDiff {
  from: string;
  to: string;
  files: ChangedFile[];
  filesChanged: number;
  linesAdded: number;
  linesRemoved: number;
  /** Unified diff; absent with `stat`. */
  text?: string;
  /** True when `text` was cut at `maxBytes`. */
  truncated: boolean;
}

const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The diff of a run or of one of its checkpoints.
 * @example await diffWorkspace(repo, workspace, { to: checkpointCommit }) // that stage's change
 */
export async function diffWorkspace(repoDir: string, workspace: RunWorkspace, options: DiffOptions = {}): Promise<WorkspaceDiff> {
  const to = await gitLine(['rev-parse', '--verify', '--end-of-options', `${options.to ?? `refs/heads/${workspace.branch}`}^{commit}`], { cwd: repoDir });
  const from =
    options.from !== undefined
      ? await gitLine(['rev-parse', '--verify', '--end-of-options', `${options.from}^{commit}`], { cwd: repoDir })
      : options.to !== undefined
        ? await firstParent(repoDir, to)
        : workspace.baseCommit;
  const files = await changedFiles(repoDir, from, to);
  const result: WorkspaceDiff = { from, to, files, ...totals(files), truncated: false };
  if (options.stat === true) return result;
  const { stdout, truncated } = await git(['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', from, to, '--'], {
    cwd: repoDir,
    maxOutput: options.maxBytes ?? DEFAULT_MAX_BYTES,
  });
  return { ...result, text: stdout, truncated };
}

/** The commit's first parent, or the empty tree for a root commit. */
async function firstParent(repoDir: string, commit: string): Promise<string> {
  const line = await gitLine(['rev-list', '--parents', '-n', '1', commit], { cwd: repoDir });
  return line.split(' ')[1] ?? (await gitLine(['hash-object', '-t', 'tree', '/dev/null'], { cwd: repoDir }));
}
