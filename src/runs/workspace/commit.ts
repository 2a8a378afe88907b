/**
 * Building commits without `git commit`: a tree of a working directory taken through a
 * temporary index (so neither the user's index nor their files are touched), and
 * `commit-tree` with weft's identity and the `Weft-*` trailers. No hooks, no editor, no
 * signing prompt can get in the way.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { git, gitLine } from './git.js';
import { DEFAULT_IDENTITY, type GitIdentity } from './workspace-spec.js';

/** `Weft-Run`, `Weft-Stage`, `Weft-Attempt` and any other trailer, in order. */
export type Trailers = readonly (readonly [string, string])[];

/** One line, no control characters: a trailer value cannot smuggle in another trailer. */
function oneLine(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

/**
 * A commit message: the subject, a blank line, then the trailers git reads with `interpret-trailers`.
 * @example commitMessage('weft: stage build@1', [['Weft-Run', id]])
 */
export function commitMessage(subject: string, trailers: Trailers): string {
  const lines = trailers.map(([key, value]) => `${key}: ${oneLine(value)}`);
  return `${oneLine(subject)}\n\n${lines.join('\n')}\n`;
}

export interface CommitTreeOptions {
  cwd: string;
  tree: string;
  parents: readonly string[];
  message: string;
  identity?: GitIdentity;
  /** Author and committer date; default now. */
  date?: Date;
}

/** `<seconds> +0000`: git's raw date, in UTC. */
function gitDate(date: Date | undefined): string {
  return `${Math.floor((date ?? new Date()).getTime() / 1000)} +0000`;
}

/** Creates a commit object (no ref moves) and returns its id. */
export async function commitTree(options: CommitTreeOptions): Promise<string> {
  const who = options.identity ?? DEFAULT_IDENTITY;
  const date = gitDate(options.date);
  const env = {
    GIT_AUTHOR_NAME: who.name,
    GIT_AUTHOR_EMAIL: who.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: who.name,
    GIT_COMMITTER_EMAIL: who.email,
    GIT_COMMITTER_DATE: date,
  };
  const parentArgs = options.parents.flatMap((parent) => ['-p', parent]);
  return gitLine(['commit-tree', options.tree, ...parentArgs, '-F', '-'], { cwd: options.cwd, env, input: options.message });
}

/** Characters git trims from either end of a name or email, or refuses inside one. */
// eslint-disable-next-line no-control-regex
const IDENT_CRUD = /^[\s.,:;<>"\\']|[\s.,:;<>"\\']$|[<>\u0000-\u001f\u007f]/;

/**
 * The raw text of the commit `commitTree` would make, for `git hash-object -t commit -w
 * --stdin` (a process that can be started before the tree is known); undefined when the
 * identity holds characters git would rewrite, so only `commitTree` can spell it.
 */
export function commitObjectText(options: Omit<CommitTreeOptions, 'cwd'>): string | undefined {
  const who = options.identity ?? DEFAULT_IDENTITY;
  if (who.name === '' || who.email === '' || IDENT_CRUD.test(who.name) || IDENT_CRUD.test(who.email)) return undefined;
  const ident = `${who.name} <${who.email}> ${gitDate(options.date)}`;
  const parents = options.parents.map((parent) => `parent ${parent}\n`).join('');
  return `tree ${options.tree}\n${parents}author ${ident}\ncommitter ${ident}\n\n${options.message}`;
}

/**
 * The tree of `topDir`'s files as they are now (tracked and untracked, ignored ones left
 * out), built in a temporary index seeded from the real one so unchanged files are not
 * hashed again. The real index and the files are not touched.
 */
export async function snapshotTree(topDir: string): Promise<string> {
  const realIndex = await gitLine(['rev-parse', '--path-format=absolute', '--git-path', 'index'], { cwd: topDir });
  const temporary = join(tmpdir(), `weft-index-${process.pid}-${randomBytes(8).toString('hex')}`);
  try {
    await copyFile(isAbsolute(realIndex) ? realIndex : join(topDir, realIndex), temporary).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    const env = { GIT_INDEX_FILE: temporary };
    await git(['add', '-A', '--', '.'], { cwd: topDir, env });
    return await gitLine(['write-tree'], { cwd: topDir, env });
  } finally {
    await rm(temporary, { force: true });
    await rm(`${temporary}.lock`, { force: true });
  }
}
