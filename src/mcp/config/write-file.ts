/**
 * Atomic file replacement for config edits: a temp file in the same folder, then rename,
 * keeping an existing file's permissions (and writing through a symlink to its target).
 */
import { mkdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

export async function writeFileAtomic(file: string, text: string, newFileMode = 0o644): Promise<void> {
  const target = await realpath(file).catch(() => file);
  await mkdir(path.dirname(target), { recursive: true });
  const mode = await stat(target).then(
    (info) => info.mode & 0o777,
    () => newFileMode,
  );
  const temp = `${target}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temp, text, { mode });
  try {
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** A file's text, or `undefined` when it does not exist. */
export async function readOptionalFile(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
