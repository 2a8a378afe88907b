/**
 * Run creation's half of a workspace, on the creating host: find the repository around the
 * creator's cwd, resolve the base, create the run branch `weft/runs/<run-id>` at it
 * (atomically: it must not exist yet), and, when asked, commit the creator's uncommitted
 * changes as the run's first checkpoint without touching their index or files.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { WeftError } from '../../core/errors.js';
import { commitMessage, commitTree, snapshotTree } from './commit.js';
import { git, gitLine, readRef, redactGitText } from './git.js';
import { pushRunBranch } from './push.js';
import { DEFAULT_IDENTITY, runBranchName, type GitIdentity, type RunWorkspace, type WorkspaceSpec } from './workspace-spec.js';

export interface PrepareOptions {
  runId: string;
  /** The creator's working directory. */
  cwd: string;
  spec: WorkspaceSpec;
  identity?: GitIdentity;
}

/** What `prepareWorkspace` resolved, plus the head the run starts from (the base, or the uncommitted-changes checkpoint). */
export interface PreparedWorkspace {
  workspace: RunWorkspace;
  head: string;
  /** Set when the creator's uncommitted changes became the first checkpoint. */
  uncommittedCheckpoint?: string;
}

/** Where `cwd` sits in a git repository, or undefined when it is in none. */
export async function findRepository(cwd: string): Promise<{ top: string; subdir: string } | undefined> {
  const result = await git(['rev-parse', '--show-toplevel', '--show-prefix'], { cwd, okCodes: [128] }).catch((error: unknown) => {
    if (WeftError.is(error, 'WORKSPACE_GIT_FAILED')) return undefined;
    throw error;
  });
  if (result === undefined || result.code !== 0) return undefined;
  const [top = '', prefix = ''] = result.stdout.split('\n');
  return { top, subdir: prefix.replace(/\/$/, '') };
}

/**
 * Resolves the spec and creates the run branch. Worktree mode works on the repository
 * around `cwd`; clone mode only resolves `repo`'s base (the clone is made by the runner).
 * @example const { workspace } = await prepareWorkspace({ runId, cwd: process.cwd(), spec: {} });
 */
export async function prepareWorkspace(options: PrepareOptions): Promise<PreparedWorkspace> {
  const mode = options.spec.mode ?? 'worktree';
  if (mode === 'in-place')
    throw new WeftError('WORKSPACE_INVALID', 'prepareWorkspace was asked for mode "in-place", which has no git workspace.');
  return mode === 'clone' ? prepareClone(options) : prepareWorktree(options);
}

async function prepareWorktree(options: PrepareOptions): Promise<PreparedWorkspace> {
  const { runId, cwd, spec } = options;
  const found = await findRepository(cwd);
  if (found === undefined) {
    throw new WeftError(
      'WORKSPACE_NOT_A_REPOSITORY',
      `${cwd} is not inside a git repository, so the run cannot get a worktree. Run 'git init' and commit there, create the run inside a repository, or set [run.workspace] mode = "in-place" (work in the directory itself) or mode = "clone" with repo = "<url>".`,
      { data: { cwd } },
    );
  }
  const top = found.top;
  const head = await readRef(top, 'HEAD');
  const base = await resolveBase(top, spec.base, head);
  const sourceBranch = await currentBranch(top);
  const branch = runBranchName(runId);
  await assertBranchFree(top, branch);
  const remoteUrl = spec.remote === undefined ? undefined : await resolveRemote(top, spec.remote);
  let start = base;
  let uncommittedCheckpoint: string | undefined;
  if (spec.includeUncommitted === true) {
    if (head === undefined || base !== head) {
      throw new WeftError(
        'WORKSPACE_INVALID',
        `include_uncommitted needs the run to start from the checked-out commit, but base '${spec.base ?? ''}' is ${base} and HEAD is ${head ?? 'unborn'}. Drop base, or drop include_uncommitted.`,
        {
          data: { base: spec.base, head },
        },
      );
    }
    uncommittedCheckpoint = await commitUncommitted(top, runId, base, options.identity);
    start = uncommittedCheckpoint ?? base;
  }
  await createBranch(top, branch, start);
  const workspace: RunWorkspace = {
    mode: 'worktree',
    sourceRepo: top,
    subdir: found.subdir,
    branch,
    baseCommit: base,
    keepBranch: spec.keepBranch ?? false,
  };
  if (sourceBranch !== undefined) workspace.sourceBranch = sourceBranch;
  if (remoteUrl !== undefined) {
    workspace.remoteUrl = remoteUrl;
    // Runners on other hosts clone the remote: it must hold the base (and any first checkpoint) from the start.
    try {
      await pushRunBranch({ runId, workspace, repoDir: top });
    } catch (error) {
      await git(['update-ref', '-d', `refs/heads/${branch}`, start], { cwd: top, okCodes: [1, 128] });
      throw error;
    }
  }
  return uncommittedCheckpoint === undefined ? { workspace, head: start } : { workspace, head: start, uncommittedCheckpoint };
}

async function resolveBase(top: string, base: string | undefined, head: string | undefined): Promise<string> {
  if (base === undefined) {
    if (head !== undefined) return head;
    throw new WeftError(
      'WORKSPACE_BASE_NOT_FOUND',
      `The repository ${top} has no commit yet, so a run has nothing to start from. Commit once ('git commit --allow-empty -m start'), or set [run.workspace] base.`,
      {
        data: { repo: top },
      },
    );
  }
  const commit = await readRef(top, base);
  if (commit === undefined) {
    throw new WeftError(
      'WORKSPACE_BASE_NOT_FOUND',
      `The base '${base}' is not a commit, branch or tag of ${top}. List what exists with 'git -C ${top} branch -a', 'git -C ${top} tag' and 'git -C ${top} log --oneline'; in a shallow clone, older commits may need 'git fetch --unshallow'.`,
      { data: { repo: top, base } },
    );
  }
  return commit;
}

async function currentBranch(top: string): Promise<string | undefined> {
  const { code, stdout } = await git(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: top, okCodes: [1, 128] });
  return code === 0 ? stdout.trim() : undefined;
}

async function assertBranchFree(top: string, branch: string): Promise<void> {
  const existing = await readRef(top, `refs/heads/${branch}`);
  if (existing !== undefined) throw branchExists(top, branch, existing);
}

function branchExists(top: string, branch: string, commit: string | undefined): WeftError {
  return new WeftError(
    'WORKSPACE_BRANCH_EXISTS',
    `The branch ${branch} already exists in ${top}${commit === undefined ? '' : ` (at ${commit})`}, so a new run cannot take that name. Delete it ('git -C ${top} branch -D ${branch}') or rename it, then create the run again.`,
    { data: { repo: top, branch } },
  );
}

/** Creates the branch only if it does not exist: two creators racing for one name get one branch and one clear error. */
async function createBranch(top: string, branch: string, commit: string): Promise<void> {
  const { code, stderr } = await git(['update-ref', '-m', 'weft: run created', `refs/heads/${branch}`, commit, ''], {
    cwd: top,
    okCodes: [1, 128],
  });
  if (code === 0) return;
  if (/exists|unable to lock|reference already/i.test(stderr)) throw branchExists(top, branch, undefined);
  throw new WeftError(
    'WORKSPACE_GIT_FAILED',
    `Could not create the run branch ${branch} in ${top}: ${redactGitText(stderr.trim())}. Fix what git names, then create the run again.`,
    {
      data: { repo: top, branch },
    },
  );
}

/** A remote name of the repository becomes its URL; anything else is taken as a URL or path. */
async function resolveRemote(top: string, remote: string): Promise<string> {
  if (/^[A-Za-z0-9._-]+$/.test(remote) && !remote.startsWith('.')) {
    const { code, stdout } = await git(['remote', 'get-url', '--', remote], { cwd: top, okCodes: [2, 128] });
    if (code === 0) return stdout.trim();
  }
  if (isUrlLike(remote)) return remote;
  const path = isAbsolute(remote) ? remote : resolve(top, remote);
  if (!existsSync(path)) {
    throw new WeftError(
      'WORKSPACE_INVALID',
      `[run.workspace] remote = '${remote}' is neither a remote of ${top} ('git -C ${top} remote -v' lists them), a URL, nor an existing path. Name one of those.`,
      {
        data: { field: 'remote', remote },
      },
    );
  }
  return path;
}

function isUrlLike(value: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value) || /^[^/\s]+@[^/\s]+:/.test(value);
}

async function commitUncommitted(top: string, runId: string, base: string, identity: GitIdentity | undefined): Promise<string | undefined> {
  const tree = await snapshotTree(top);
  const baseTree = await gitLine(['rev-parse', `${base}^{tree}`], { cwd: top });
  if (tree === baseTree) return undefined;
  const message = commitMessage('weft: uncommitted changes of the creator', [
    ['Weft-Run', runId],
    ['Weft-Stage', 'uncommitted'],
  ]);
  return commitTree({ cwd: top, tree, parents: [base], message, identity: identity ?? DEFAULT_IDENTITY });
}

async function prepareClone(options: PrepareOptions): Promise<PreparedWorkspace> {
  const { runId, cwd, spec } = options;
  if (spec.repo === undefined || spec.repo.trim() === '') {
    throw new WeftError('WORKSPACE_INVALID', '[run.workspace] mode = "clone" needs repo = "<git URL or path>" naming what to clone.', {
      data: { field: 'repo' },
    });
  }
  if (spec.includeUncommitted === true) {
    throw new WeftError(
      'WORKSPACE_INVALID',
      '[run.workspace] include_uncommitted applies to mode = "worktree" only; a clone has no uncommitted changes of yours.',
      {
        data: { field: 'include_uncommitted' },
      },
    );
  }
  const repoUrl = isUrlLike(spec.repo) ? spec.repo : resolve(cwd, spec.repo);
  const base = await resolveRemoteBase(cwd, repoUrl, spec.base);
  const workspace: RunWorkspace = {
    mode: 'clone',
    repoUrl,
    subdir: '',
    branch: runBranchName(runId),
    baseCommit: base.commit,
    keepBranch: spec.keepBranch ?? false,
  };
  if (base.branch !== undefined) workspace.sourceBranch = base.branch;
  if (spec.remote !== undefined)
    workspace.remoteUrl = isUrlLike(spec.remote) ? spec.remote : spec.remote === 'origin' ? repoUrl : resolve(cwd, spec.remote);
  return { workspace, head: base.commit };
}

/** The commit `base` names in the repository at `url`, asked with `ls-remote` (no clone needed). */
async function resolveRemoteBase(cwd: string, url: string, base: string | undefined): Promise<{ commit: string; branch?: string }> {
  if (base !== undefined && /^[0-9a-f]{40}$/.test(base)) return { commit: base };
  const wanted = base ?? 'HEAD';
  const { stdout } = await git(
    [
      'ls-remote',
      '--symref',
      '--',
      url,
      ...(base === undefined ? ['HEAD'] : [`refs/heads/${base}`, `refs/tags/${base}`, `refs/tags/${base}^{}`, base]),
    ],
    {
      cwd,
      failure: {
        code: 'WORKSPACE_FETCH_FAILED',
        what: `Could not read ${redactGitText(url)}`,
        hint: 'Check the URL or path and that this host can reach it.',
      },
    },
  );
  const lines = stdout.split('\n').filter((line) => line !== '');
  const symref = lines.find((line) => line.startsWith('ref: '));
  const refs = lines.filter((line) => !line.startsWith('ref: ')).map((line) => line.split('\t') as [string, string]);
  const pick = refs.find(([, ref]) => ref.endsWith('^{}')) ?? refs[0];
  if (pick === undefined) {
    throw new WeftError(
      'WORKSPACE_BASE_NOT_FOUND',
      `The base '${wanted}' is not a branch or tag of ${redactGitText(url)}. List what exists with 'git ls-remote ${redactGitText(url)}'.`,
      {
        data: { repo: redactGitText(url), base: wanted },
      },
    );
  }
  const branch =
    base === undefined ? /^ref: refs\/heads\/(\S+)\tHEAD$/.exec(symref ?? '')?.[1] : pick[1] === `refs/heads/${base}` ? base : undefined;
  return branch === undefined ? { commit: pick[0] } : { commit: pick[0], branch };
}
