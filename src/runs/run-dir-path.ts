/**
 * Paths a caller names for a run (its goal file, and its workflow file when the caller
 * acts for a remote client) are confined to the run's directory by real path, so a
 * symlink inside the directory cannot hand out a file from elsewhere (`/proc/self/environ`).
 */
import { WeftError } from '../core/errors.js';
import { resolveInWorkspace } from '../tools/builtin/workspace-path.js';

/**
 * Refuses a path with a NUL byte, which no file name holds and node's file functions reject
 * with a TypeError (that would surface as an internal error instead of the caller's mistake).
 */
export function refuseNulInPath(path: string, what: string): void {
  if (!path.includes('\0')) return;
  throw new WeftError(
    'RUN_INVALID_PARAMS',
    `${what} ${JSON.stringify(path.slice(0, 200))} contains a NUL byte, which no path can hold; give a real path.`,
    { data: { path: path.slice(0, 200) } },
  );
}

/**
 * The real path of `file` (relative to `cwd`, or absolute inside it), refused with
 * RUN_INVALID_PARAMS when it, or a symlink on the way, leads out of `cwd`.
 *
 * @example await realPathInRunDir('/work/app', 'plans/goal.md', 'goal file') // '/work/app/plans/goal.md'
 */
export async function realPathInRunDir(cwd: string, file: string, what: string): Promise<string> {
  refuseNulInPath(cwd, "the run's directory");
  refuseNulInPath(file, what);
  try {
    return await resolveInWorkspace(cwd, file);
  } catch (error) {
    if (error instanceof WeftError && error.code === 'PATH_OUTSIDE_WORKSPACE') {
      throw new WeftError(
        'RUN_INVALID_PARAMS',
        `${what} '${file}' is outside the run's directory ${cwd} (a symlink counts by where it points); use a file inside that directory.`,
        {
          data: { path: file },
        },
      );
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new WeftError('RUN_INVALID_PARAMS', `The run's directory ${cwd} does not exist; give an existing cwd.`, {
        data: { cwd },
        cause: error,
      });
    }
    throw error;
  }
}
