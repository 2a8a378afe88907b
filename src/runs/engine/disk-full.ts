/**
 * Names a full disk in a stage's or workspace's failure: git (and most tools) say it in
 * words of their own ("Out of diskspace", "No space left on device"), so the engine adds
 * `ENOSPC` and the directory whose disk is full, and what to do, before their message.
 */
import { statfs } from 'node:fs/promises';
import { errorMessage } from '../../core/errors.js';

/** Below this many free bytes a failed write is taken for a full disk even if the message does not say so. */
const NEARLY_FULL_BYTES = 64 * 1024;

const FULL_WORDS = /ENOSPC|no space left on device|out of diskspace|disk quota exceeded|EDQUOT/i;

/**
 * The failure's message, prefixed with "ENOSPC: the disk holding <dir> is full …" when the
 * failure is a full disk (its message says so, or `dir`'s disk has next to nothing free).
 *
 * @example await withDiskFullNote('/ws/01H…', new Error("… write error. Out of diskspace."))
 * // → "ENOSPC: the disk holding /ws/01H… is full (0 bytes free); free space on this host and resume the run. … Out of diskspace."
 */
export async function withDiskFullNote(dir: string, error: unknown): Promise<string> {
  const message = errorMessage(error);
  const free = await statfs(dir).then(
    (stats) => stats.bavail * stats.bsize,
    () => undefined,
  );
  if (!FULL_WORDS.test(message) && (free === undefined || free >= NEARLY_FULL_BYTES)) return message;
  const left = free === undefined ? '' : ` (${free} bytes free)`;
  return `ENOSPC: the disk holding ${dir} is full${left}; free space on this host (or move its workspace root, WEFT_WORKSPACE_ROOT) and resume the run. ${message}`;
}
