/**
 * The fingerprint of the environment a run is created in: an HMAC-SHA256, under a random
 * key kept 0600 in the storage dir, over the sorted names and values of the variables that
 * matter to a run. A run stores only the fingerprint; a runner started on behalf of a
 * creator computes its own and claims only runs with the same one, so a run is executed
 * with what its creator exported (API keys, base URLs, PATH) and no secret value is kept.
 * The key makes the fingerprint useless for guessing a value offline from `weft.db`.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WEFT_SECRET_ENV_NAMES } from '../../core/child-environment.js';
import { WeftError, errorMessage } from '../../core/errors.js';

export const ENVIRONMENT_KEY_FILE = 'environment-key';
const KEY_BYTES = 32;

/**
 * Left out: what the shell sets per directory or per command, what weft sets for its own
 * runners, and weft's own secrets (runners never get them).
 */
const IGNORED: ReadonlySet<string> = new Set(['PWD', 'OLDPWD', 'SHLVL', '_', 'WEFT_HOME', ...WEFT_SECRET_ENV_NAMES]);

const keys = new Map<string, Buffer>();

function keyProblem(file: string, reason: string, cause?: unknown): WeftError {
  return new WeftError(
    'STORE_FAILED',
    `Cannot use the environment key ${file}: ${reason}. Check the storage dir's permissions, or delete the file to get a new key (runners already started for earlier runs then no longer match them).`,
    { cause, data: { file } },
  );
}

function readKey(file: string): Buffer | undefined {
  let key: Buffer;
  try {
    key = readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw keyProblem(file, errorMessage(error), error);
  }
  if (key.length !== KEY_BYTES) throw keyProblem(file, `it holds ${key.length} bytes, not ${KEY_BYTES}`);
  return key;
}

/** The storage dir's key, created on first use; a link makes it appear whole, so concurrent creators agree on one. */
function environmentKey(storageDir: string): Buffer {
  const file = join(storageDir, ENVIRONMENT_KEY_FILE);
  const cached = keys.get(file);
  if (cached) return cached;
  let key = readKey(file);
  if (key === undefined) {
    const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
    try {
      mkdirSync(storageDir, { recursive: true, mode: 0o700 });
      writeFileSync(draft, randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx' });
      linkSync(draft, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw keyProblem(file, errorMessage(error), error);
    } finally {
      try {
        unlinkSync(draft);
      } catch {
        // never written
      }
    }
    key = readKey(file);
    if (key === undefined) throw keyProblem(file, 'it disappeared while it was being created');
  }
  keys.set(file, key);
  return key;
}

/**
 * @example environmentFingerprint('/home/me/.weft', process.env) // → 'Qm9…' (43 characters, base64url)
 */
export function environmentFingerprint(storageDir: string, env: Readonly<Record<string, string | undefined>>): string {
  const hmac = createHmac('sha256', environmentKey(storageDir));
  const names = Object.keys(env)
    .filter((name) => env[name] !== undefined && !IGNORED.has(name))
    .sort();
  // NUL cannot occur in a name or a value, so the encoding is unambiguous.
  for (const name of names) hmac.update(`${name}\0${env[name]}\0`);
  return hmac.digest('base64url');
}
