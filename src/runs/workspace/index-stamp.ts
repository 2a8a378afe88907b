/**
 * Whether anyone wrote the run's index since weft's last checkpoint left it, from its file
 * status alone (no process): git replaces the index by renaming a new file over it, so a
 * write changes its inode, size or times. A checkpoint that finds the stamp unchanged and
 * `add -A` adding nothing knows the index still holds the last checkpoint's tree and skips
 * `write-tree`.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { gitDirOf } from './head-file.js';
import type { OpenedWorkspace } from './workspace-spec.js';

const stamps = new WeakMap<OpenedWorkspace, { head: string; path: string; stamp: string }>();

/** `<git dir>/index` of a working copy. */
function indexPath(topDir: string): string | undefined {
  const gitDir = gitDirOf(topDir);
  return gitDir === undefined ? undefined : join(gitDir, 'index');
}

function stampOf(path: string): string | undefined {
  try {
    const status = statSync(path, { bigint: true });
    return `${status.ino}:${status.size}:${status.mtimeNs}:${status.ctimeNs}`;
  } catch {
    return undefined;
  }
}

/** Notes the index as it is now, holding the tree of `opened.head` (call right after weft's own last write to it). */
export function stampIndex(opened: OpenedWorkspace): void {
  const path = stamps.get(opened)?.path ?? indexPath(opened.topDir);
  const stamp = path === undefined ? undefined : stampOf(path);
  if (path === undefined || stamp === undefined) stamps.delete(opened);
  else stamps.set(opened, { head: opened.head, path, stamp });
}

/** True when the index is the one `stampIndex` noted for the current head, unwritten since. */
export function indexUntouched(opened: OpenedWorkspace): boolean {
  const noted = stamps.get(opened);
  return noted !== undefined && noted.head === opened.head && stampOf(noted.path) === noted.stamp;
}

/** Forgets the note (the index no longer holds the head's tree). */
export function forgetIndex(opened: OpenedWorkspace): void {
  stamps.delete(opened);
}
