/**
 * Writing a client's config file after keeping the previous one as `<file>.bak` (with the
 * same mode), shared by every `weft mcp init` target.
 */
import { chmod, stat, writeFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../mcp/config/write-file.js';

/** Writes `text` to `file`; returns the backup's path when there was a previous file (`before`). */
export async function writeWithBackup(file: string, before: string | undefined, text: string): Promise<string | undefined> {
  let backup: string | undefined;
  if (before !== undefined) {
    backup = `${file}.bak`;
    const mode = (await stat(file)).mode & 0o777;
    await writeFile(backup, before, { mode });
    await chmod(backup, mode);
  }
  // Client configs can hold other servers' secrets: a new file is private to the user.
  await writeFileAtomic(file, text, 0o600);
  return backup;
}
