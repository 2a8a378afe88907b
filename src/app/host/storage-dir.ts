/**
 * Where weft keeps its state: `--storage-dir`, else `$WEFT_HOME`, else `~/.weft`; and the
 * check that it can: a storage dir that cannot be used fails at once, naming the path and
 * the reason, instead of when the store first writes (or never: Node's recursive mkdir
 * loops forever under /proc).
 */
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { WeftError } from '../../core/errors.js';

export function resolveStorageDir(explicit: string | undefined, env: Record<string, string | undefined>): string {
  if (explicit) return resolve(explicit);
  if (env.WEFT_HOME) return resolve(env.WEFT_HOME);
  return join(homedir(), '.weft');
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is not a directory',
  ENOSPC: 'no space left on the device',
  ELOOP: 'too many symbolic links',
};

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return REASONS[code] === undefined ? (error as Error).message : `${REASONS[code]} (${code})`;
}

function unusable(dir: string, reason: string, cause?: unknown): WeftError {
  return new WeftError(
    'CONFIG_INVALID',
    `Storage dir ${dir} cannot be used: ${reason}. Point --storage-dir or WEFT_HOME at a directory you can write to.`,
    {
      data: { storageDir: dir },
      ...(cause === undefined ? {} : { cause }),
    },
  );
}

/**
 * Creates `dir` (and missing parents) when absent, one level at a time, and checks that it
 * is a directory this process may write in; throws `CONFIG_INVALID` otherwise.
 * @example prepareStorageDir('/proc/x'); // throws: Storage dir /proc/x cannot be used: cannot create /proc/x: no such file or directory (ENOENT). …
 */
export function prepareStorageDir(dir: string): string {
  const missing: string[] = [];
  for (let path = dir; ; path = dirname(path)) {
    try {
      if (!statSync(path).isDirectory())
        throw unusable(dir, path === dir ? 'it is a file, not a directory' : `${path} is a file, not a directory`);
      break;
    } catch (error) {
      if (error instanceof WeftError) throw error;
      // ENOTDIR: a parent is a file; walking up finds it and names it.
      const absent = ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');
      if (!absent || dirname(path) === path) throw unusable(dir, `cannot look at ${path}: ${reasonOf(error)}`, error);
      missing.unshift(path);
    }
  }
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw unusable(dir, `cannot create ${path}: ${reasonOf(error)}`, error);
    }
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw unusable(dir, `cannot write in it: ${reasonOf(error)}`, error);
  }
  return dir;
}
