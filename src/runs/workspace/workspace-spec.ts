/**
 * The shapes of a run's workspace: what the user asked for (`WorkspaceSpec`, from
 * `[run.workspace]` or `--workspace`), what was resolved when the run was created and is
 * stored with it (`RunWorkspace`, plain JSON), what a runner holds while it works in it
 * (`OpenedWorkspace`), and what one checkpoint recorded. Only types and tiny pure helpers
 * live here, so every layer above may import them cheaply.
 */
import { WeftError } from '../../core/errors.js';

/** `worktree`: a git worktree of the creator's repository; `clone`: a fresh clone of `repo` per run; `in-place`: the run's cwd, no git. */
export type WorkspaceMode = 'worktree' | 'in-place' | 'clone';

/** What the user asked for; every field optional (`mode` defaults to `worktree` inside a git repository). */
export interface WorkspaceSpec {
  mode?: WorkspaceMode;
  /** A commit, branch or tag; default: the commit checked out where the run is created (worktree) or the remote's HEAD (clone). */
  base?: string;
  /** Worktree mode: the creator's uncommitted changes (tracked and untracked, not ignored) become the run's first checkpoint. */
  includeUncommitted?: boolean;
  /** Clone mode: the git URL or path to clone. */
  repo?: string;
  /** A remote name (of the creator's repository) or URL: each checkpoint is pushed to it and runners on other hosts fetch from it. */
  remote?: string;
  /** Keep the run branch when the run is removed. */
  keepBranch?: boolean;
}

/** The git-backed modes; `in-place` has no `RunWorkspace`. */
export type GitWorkspaceMode = Exclude<WorkspaceMode, 'in-place'>;

/** Resolved at creation and stored with the run; everything a runner on any host needs to open it. */
export interface RunWorkspace {
  mode: GitWorkspaceMode;
  /** Worktree mode: the absolute top directory of the creator's repository (on the creating host). */
  sourceRepo?: string;
  /** Clone mode: the URL or absolute path cloned. */
  repoUrl?: string;
  /** The creator's cwd relative to the repository's top, `/`-separated, `''` at the top. */
  subdir: string;
  /** `weft/runs/<run-id>`. */
  branch: string;
  /** The commit the run branch was created at (before any uncommitted-changes checkpoint). */
  baseCommit: string;
  /** The branch checked out where the run was created (the default target of a merge); absent on a detached HEAD. */
  sourceBranch?: string;
  /** The remote's URL (a remote name is resolved to its URL at creation, so other hosts need not know the name). */
  remoteUrl?: string;
  keepBranch: boolean;
}

/** A run's working copy on this host, as `openWorkspace` returned it. */
export interface OpenedWorkspace {
  runId: string;
  workspace: RunWorkspace;
  /** The working copy's top directory: `<root>/<run-id>`. */
  topDir: string;
  /** Where stages work: `topDir` joined with the creator's subdir. */
  workDir: string;
  /** The git directory holding the run's refs on this host (the source repository, or the clone). */
  repoDir: string;
  /** The last checkpoint; `checkpoint` requires the next one to descend from it and then moves it. */
  head: string;
}

/** One changed file of a checkpoint or a diff. `added`/`removed` are 0 for binary files. */
export interface ChangedFile {
  path: string;
  /** git's status letter: A added, M modified, D deleted, T type changed. */
  status: string;
  added: number;
  removed: number;
  binary: boolean;
}

/** What `checkpoint` committed. */
export interface CheckpointResult {
  commit: string;
  /** The previous checkpoint (the stage's own commits, if any, lie between the two). */
  parent: string;
  filesChanged: number;
  linesAdded: number;
  linesRemoved: number;
  files: ChangedFile[];
}

/** Author and committer of weft's commits. */
export interface GitIdentity {
  name: string;
  email: string;
}

export const DEFAULT_IDENTITY: GitIdentity = { name: 'weft', email: 'weft@localhost' };

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/**
 * The run branch's name; the run id is checked because it becomes a ref name and a folder.
 * @example runBranchName('01J…') // 'weft/runs/01J…'
 */
export function runBranchName(runId: string): string {
  return `weft/runs/${checkedRunId(runId)}`;
}

/** The run id, if it is safe as one path segment and one ref component; else throws. */
export function checkedRunId(runId: string): string {
  if (!RUN_ID.test(runId)) {
    throw new WeftError('WORKSPACE_INVALID', `Run id '${runId}' cannot name a workspace: a run id has letters, digits, '-' and '_' only.`, {
      data: { runId },
    });
  }
  return runId;
}
