/**
 * Reading a working copy's git state from its files, without starting a process: where its
 * git dir is (`.git` itself, or the directory a worktree's `.git` file names), and which
 * commit and branch HEAD names when the branch is a loose ref. Anything unusual (a packed
 * or symbolic ref, another ref format) answers undefined and the caller asks git.
 */
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** The git dir of the working copy at `topDir`, or undefined when `.git` is neither a directory nor a `gitdir:` file. */
export function gitDirOf(topDir: string): string | undefined {
  const dotGit = join(topDir, '.git');
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
    const named = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
    return named === undefined ? undefined : isAbsolute(named) ? named : resolve(topDir, named);
  } catch {
    return undefined;
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The repository's shared dir: a worktree's git dir names it in `commondir`. */
function commonDirOf(gitDir: string): string {
  const named = readText(join(gitDir, 'commondir'))?.trim();
  return named === undefined || named === '' ? gitDir : resolve(gitDir, named);
}

/**
 * HEAD's commit and branch from the files (git replaces them by rename, so a read is never
 * half a write), or undefined when git must be asked.
 */
export function readHeadFile(topDir: string): { headCommit: string; headBranch: string | undefined } | undefined {
  const gitDir = gitDirOf(topDir);
  const head = gitDir === undefined ? undefined : readText(join(gitDir, 'HEAD'))?.trim();
  if (gitDir === undefined || head === undefined) return undefined;
  if (OBJECT_ID.test(head)) return { headCommit: head, headBranch: undefined };
  const branch = /^ref: refs\/heads\/(.+)$/.exec(head)?.[1];
  if (branch === undefined || branch.split('/').some((part) => part === '' || part === '.' || part === '..')) return undefined;
  const commit = readText(join(commonDirOf(gitDir), 'refs', 'heads', ...branch.split('/')))?.trim();
  return commit !== undefined && OBJECT_ID.test(commit) ? { headCommit: commit, headBranch: branch } : undefined;
}
