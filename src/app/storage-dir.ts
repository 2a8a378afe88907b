/**
 * Where weft keeps its state: `--storage-dir`, else `$WEFT_HOME`, else `~/.weft`.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function resolveStorageDir(explicit: string | undefined, env: Record<string, string | undefined>): string {
  if (explicit) return resolve(explicit);
  if (env.WEFT_HOME) return resolve(env.WEFT_HOME);
  return join(homedir(), '.weft');
}
