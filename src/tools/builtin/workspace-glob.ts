/**
 * Globbing confined to the workspace for grep and glob: always rooted at the workspace
 * (so the root .gitignore applies even when searching a subfolder), .git skipped,
 * patterns that would climb out of the root refused, and entries found through a
 * symlinked folder that leads outside dropped.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { convertPathToPattern, globby } from 'globby';
import type { GlobEntry } from 'globby';
import { WeftError } from '../../core/errors.js';
import { isInside } from './workspace-path.js';

const ALWAYS_IGNORED = ['**/.git', '**/.git/**'];

/**
 * Turns a user pattern, relative to `baseDir` (a canonical directory inside `realRoot`),
 * into one relative to the root. Absolute patterns inside the root are accepted too.
 */
export function scopePattern(realRoot: string, baseDir: string, pattern: string): string {
  if (pattern.startsWith('!')) {
    throw new WeftError('TOOL_INVALID_ARGS', `Glob pattern '${pattern}' is a negation; give a positive pattern.`);
  }
  let relativePattern = pattern;
  let base = baseDir;
  if (path.isAbsolute(pattern)) {
    if (!isInside(realRoot, pattern)) {
      throw new WeftError('PATH_OUTSIDE_WORKSPACE', `Glob pattern '${pattern}' is outside the workspace.`);
    }
    relativePattern = path.relative(realRoot, pattern).split(path.sep).join('/');
    base = realRoot;
  }
  if (relativePattern.split('/').some((segment) => segment === '..' || segment.includes('..,') || segment.includes(',..'))) {
    throw new WeftError(
      'PATH_OUTSIDE_WORKSPACE',
      `Glob pattern '${pattern}' climbs out of its folder with '..'; use the path parameter instead.`,
    );
  }
  const baseRel = path.relative(realRoot, base).split(path.sep).join('/');
  return baseRel === '' ? relativePattern : `${convertPathToPattern(baseRel)}/${relativePattern}`;
}

const options = (realRoot: string) =>
  ({
    cwd: realRoot,
    gitignore: true,
    dot: true,
    onlyFiles: true,
    // Symlinked files and folders are left out, so a link pointing outside is never read.
    followSymbolicLinks: false,
    ignore: ALWAYS_IGNORED,
    absolute: true,
  }) as const;

/**
 * The walker does not follow symlinks it meets, but it does enter a pattern's literal
 * folders (`link/*`, `{a,link}/**`) even when they are symlinks; so every folder an entry
 * was found in is judged by its real path, once per folder, and symlinked files are dropped.
 */
async function confine(realRoot: string, entries: readonly GlobEntry[]): Promise<GlobEntry[]> {
  const folderVerdicts = new Map<string, Promise<boolean>>();
  const folderInside = (folder: string): Promise<boolean> => {
    let verdict = folderVerdicts.get(folder);
    if (!verdict) {
      verdict = fs.realpath(folder).then(
        (real) => isInside(realRoot, real),
        () => false,
      );
      folderVerdicts.set(folder, verdict);
    }
    return verdict;
  };
  const kept = await Promise.all(
    entries.map(async (entry) => {
      const absolute = path.resolve(entry.path);
      return !entry.dirent.isSymbolicLink() && isInside(realRoot, absolute) && folderInside(path.dirname(absolute));
    }),
  );
  return entries.filter((_, index) => kept[index]);
}

/** Canonical absolute paths of the files matching a root-relative pattern. */
export async function globFiles(realRoot: string, pattern: string): Promise<string[]> {
  const found: GlobEntry[] = await globby(pattern, { ...options(realRoot), objectMode: true });
  return (await confine(realRoot, found)).map((entry) => path.resolve(entry.path));
}

/** Like globFiles, with modification times, for newest-first ordering. */
export async function globFilesWithTimes(realRoot: string, pattern: string): Promise<Array<{ path: string; mtimeMs: number }>> {
  const found: GlobEntry[] = await globby(pattern, { ...options(realRoot), objectMode: true, stats: true });
  return (await confine(realRoot, found)).map((entry) => ({ path: path.resolve(entry.path), mtimeMs: entry.stats?.mtimeMs ?? 0 }));
}
