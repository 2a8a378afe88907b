/**
 * Atomic file replacement shared by write_file and edit_file: a reader never sees a
 * half-written file, and a crash leaves either the old content or the new.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export async function atomicWriteFile(absolutePath: string, content: string): Promise<void> {
  const dir = path.dirname(absolutePath);
  await fs.mkdir(dir, { recursive: true });
  // Same directory as the target, so rename never crosses filesystems.
  const temp = path.join(dir, `.${path.basename(absolutePath)}.weft-${randomBytes(6).toString('hex')}.tmp`);
  let mode: number | undefined;
  try {
    mode = (await fs.stat(absolutePath)).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  try {
    await fs.writeFile(temp, content, { encoding: 'utf8', flag: 'wx', ...(mode === undefined ? {} : { mode }) });
    // writeFile's mode is filtered by the umask; an edit must keep e.g. a script executable.
    if (mode !== undefined) await fs.chmod(temp, mode);
    await fs.rename(temp, absolutePath);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}
