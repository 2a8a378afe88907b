/**
 * Confines file tools to the workspace root: every path is canonicalised (symlinks
 * resolved) so the read-before-write tracker has one key per file and nothing escapes.
 */
import { promises as fs, realpathSync } from 'node:fs';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { WeftError } from '../../core/errors.js';
import type { RealRoots } from '../tool.js';

// Same bound as the kernel's, so a symlink cycle fails instead of recursing forever.
const MAX_SYMLINK_HOPS = 40;

/** Whether `candidate` is `root` or lies below it (lexically; callers pass real paths). */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

/**
 * realpath that also works for paths that do not exist yet: the nearest existing
 * ancestor is resolved and the rest appended. A dangling symlink is followed by hand,
 * since writing through it would create its target, which may lie outside the root.
 */
async function canonicalize(target: string, hops = 0): Promise<string> {
  try {
    return await fs.realpath(target);
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  const parent = path.dirname(target);
  if (parent === target) return target;
  const realParent = await canonicalize(parent, hops);
  const joined = path.join(realParent, path.basename(target));
  let isLink: boolean;
  try {
    isLink = (await fs.lstat(joined)).isSymbolicLink();
  } catch {
    return joined;
  }
  if (!isLink) return joined;
  if (hops >= MAX_SYMLINK_HOPS) {
    throw new WeftError('TOOL_FAILED', `Too many levels of symbolic links at '${joined}'.`);
  }
  return canonicalize(path.resolve(realParent, await fs.readlink(joined)), hops + 1);
}

function outside(inputPath: string): WeftError {
  return new WeftError(
    'PATH_OUTSIDE_WORKSPACE',
    `Path '${inputPath}' is outside the workspace; file tools can only reach files inside the workspace root.`,
    { data: { path: inputPath } },
  );
}

/** The canonical absolute path of the workspace root (from `roots` when the caller keeps a memo). */
export async function workspaceRealRoot(workspaceRoot: string, roots?: RealRoots): Promise<string> {
  return roots ? roots.get(workspaceRoot) : fs.realpath(path.resolve(workspaceRoot));
}

/**
 * Canonical absolute path of `inputPath` (relative to the root, or absolute), refused
 * with PATH_OUTSIDE_WORKSPACE when it or a symlink on the way leads outside the root.
 */
export async function resolveInWorkspace(
  workspaceRoot: string,
  inputPath: string,
  roots?: RealRoots,
  denyRead?: readonly string[],
): Promise<string> {
  const givenRoot = path.resolve(workspaceRoot);
  const realRoot = await workspaceRealRoot(workspaceRoot, roots);
  const lexical = path.resolve(givenRoot, inputPath);
  // An absolute path may be spelled through the root as given or through its realpath
  // (e.g. /tmp vs /private/tmp); both name the same file.
  let relative: string;
  if (isInside(givenRoot, lexical)) relative = path.relative(givenRoot, lexical);
  else if (isInside(realRoot, lexical)) relative = path.relative(realRoot, lexical);
  else throw outside(inputPath);
  const canonical = await canonicalize(path.join(realRoot, relative));
  if (!isInside(realRoot, canonical)) throw outside(inputPath);
  if (denyRead !== undefined && denyRead.some((hidden) => isInside(hidden, canonical) || isInside(hidden, lexical))) {
    throw new WeftError(
      'TOOL_DENIED',
      `Path '${inputPath}' is hidden by [run.sandbox] deny_read (credential folders and weft's storage are always hidden); remove it from deny_read to allow it.`,
      {
        data: { path: inputPath, setting: 'deny_read' },
      },
    );
  }
  return canonical;
}

/** Workspace-relative spelling of a canonical path, for messages (`.` for the root); `realRoot` when the caller has it. */
export function displayPath(workspaceRoot: string, absolutePath: string, realRoot?: string): string {
  const roots = [path.resolve(workspaceRoot)];
  if (realRoot !== undefined) roots.unshift(realRoot);
  else {
    try {
      roots.unshift(realpathSync(roots[0] ?? workspaceRoot));
    } catch {
      // A vanished root still gets a readable message from the lexical spelling.
    }
  }
  for (const root of roots) {
    if (isInside(root, absolutePath)) {
      const rel = path.relative(root, absolutePath);
      return rel === '' ? '.' : rel.split(path.sep).join('/');
    }
  }
  return absolutePath;
}

/** Stats a path, or undefined when nothing is there. */
export async function statOrUndefined(absolutePath: string): Promise<Stats | undefined> {
  try {
    return await fs.stat(absolutePath);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

export function fileNotFound(shown: string, hint: string): WeftError {
  return new WeftError('FILE_NOT_FOUND', `File not found: '${shown}'. ${hint}`, { data: { path: shown } });
}
