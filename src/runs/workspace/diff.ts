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
  const to = await gitLine(['rev-parse', '--verify', '--end-of-options', `${options.to ?? `refs/heads/${workspace.branch}`}^{commit}`], {
    cwd: repoDir,
  });
  const from =
    options.from !== undefined
      ? await gitLine(['rev-parse', '--verify', '--end-of-options', `${options.from}^{commit}`], { cwd: repoDir })
      : options.to !== undefined
        ? await previousCheckpoint(repoDir, to, workspace.baseCommit)
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

/**
 * The checkpoint before `commit`: the nearest first-parent ancestor that weft made (it
 * carries a `Weft-Run` trailer) or the run's base, so a stage's diff includes the commits
 * the stage made itself. The empty tree for a root commit.
 */
async function previousCheckpoint(repoDir: string, commit: string, base: string): Promise<string> {
  const { stdout } = await git(
    [
      'log',
      '--first-parent',
      '-z',
      '--max-count=10000',
      '--format=%H %(trailers:key=Weft-Run,valueonly,separator=%x2C)',
      `${commit}^`,
      '--',
    ],
    {
      cwd: repoDir,
      okCodes: [128],
    },
  );
  const entries = stdout.split('\0').filter((entry) => entry !== '');
  if (entries.length === 0) return gitLine(['hash-object', '-t', 'tree', '/dev/null'], { cwd: repoDir });
  for (const entry of entries) {
    const [id = '', trailer = ''] = entry.split(' ');
    if (id === base || trailer.trim() !== '') return id;
  }
  return entries[0]?.split(' ')[0] ?? base;
}
