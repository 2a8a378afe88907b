/**
 * Which files changed between two commits, with lines added and removed: one
 * `git diff-tree --raw --numstat -z` read into `ChangedFile`s (binary files marked), the
 * shared answer of a checkpoint's summary and of `diff --stat`.
 */
import { git } from './git.js';
import type { ChangedFile } from './workspace-spec.js';

const RAW_HEADER = /^:\d{6} \d{6} [0-9a-f]+ [0-9a-f]+ ([A-Z])\d*$/;

/**
 * The files changed from `from` to `to`, sorted by path.
 * @example await changedFiles(repo, base, head) // [{ path: 'a.txt', status: 'M', added: 1, removed: 0, binary: false }]
 */
export async function changedFiles(cwd: string, from: string, to: string): Promise<ChangedFile[]> {
  const { stdout } = await git(
    ['diff-tree', '-r', '-z', '--raw', '--numstat', '--no-renames', '--no-ext-diff', '--no-textconv', from, to, '--'],
    { cwd },
  );
  return parseRawNumstat(stdout);
}

/** `git diff-tree` reading `<from-tree> <to-tree>` lines from stdin, so it can start before the trees are known. */
export const DIFF_TREE_STDIN = [
  'diff-tree',
  '--stdin',
  '-r',
  '-z',
  '--raw',
  '--numstat',
  '--no-renames',
  '--no-ext-diff',
  '--no-textconv',
] as const;

/** Parses what `DIFF_TREE_STDIN` prints for one pair of trees: the pair echoed on a line of its own, then the records. */
export function parseDiffTreeStdin(output: string): ChangedFile[] {
  return parseRawNumstat(output.slice(output.indexOf('\n') + 1));
}

/** Parses `--raw --numstat -z` output: raw records (header, path) come first, then numstat records (`added\tremoved\tpath`). */
export function parseRawNumstat(output: string): ChangedFile[] {
  const tokens = output.split('\0');
  const byPath = new Map<string, ChangedFile>();
  let index = 0;
  while (index < tokens.length) {
    const token = tokens[index] ?? '';
    const header = RAW_HEADER.exec(token);
    if (header === null) break;
    const path = tokens[index + 1] ?? '';
    byPath.set(path, { path, status: header[1] ?? 'M', added: 0, removed: 0, binary: false });
    index += 2;
  }
  for (; index < tokens.length; index += 1) {
    const token = tokens[index] ?? '';
    if (token === '') continue;
    const [added = '', removed = '', ...rest] = token.split('\t');
    const path = rest.join('\t');
    const file = byPath.get(path);
    if (file === undefined) continue;
    if (added === '-' && removed === '-') file.binary = true;
    else {
      file.added = Number(added);
      file.removed = Number(removed);
    }
  }
  return [...byPath.values()].sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
}

/** Totals of a list of changed files. */
export function totals(files: readonly ChangedFile[]): { filesChanged: number; linesAdded: number; linesRemoved: number } {
  let linesAdded = 0;
  let linesRemoved = 0;
  for (const file of files) {
    linesAdded += file.added;
    linesRemoved += file.removed;
  }
  return { filesChanged: files.length, linesAdded, linesRemoved };
}
