/**
 * The bearer token of `weft mcp start --http`: `WEFT_MCP_TOKEN` when set, else the token
 * stored in `<storage dir>/mcp-server-token` (mode 0600), generated on first use. Tokens
 * are compared in constant time and registered for redaction.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WeftError } from '../../core/errors.js';
import { MCP_SERVER_TOKEN_ENV } from '../../core/child-environment.js';
import { registerSecret } from '../../core/redact.js';

export const TOKEN_FILE_NAME = 'mcp-server-token';
export const TOKEN_ENV = MCP_SERVER_TOKEN_ENV;
const MIN_TOKEN_LENGTH = 16;

export interface ServerToken {
  token: string;
  /** Where it came from: the environment, the stored file, or a file written just now. */
  source: 'env' | 'file' | 'created';
  file: string;
}

/** The stored token; `undefined` when there is no file, `''` when it holds no usable token. */
async function readStored(file: string): Promise<string | undefined> {
  try {
    const info = await stat(file);
    // Others could read it: tighten it before use.
    if ((info.mode & 0o077) !== 0) await chmod(file, 0o600);
    const token = (await readFile(file, 'utf8')).trim();
    return token.length >= MIN_TOKEN_LENGTH ? token : '';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new WeftError(
      'CONFIG_INVALID',
      `Cannot read the MCP server token ${file}: ${(error as Error).message}. Fix its permissions or delete it to get a new one.`,
      { cause: error },
    );
  }
}

/** @example const { token } = await loadServerToken('/home/me/.weft', process.env); */
export async function loadServerToken(storageDir: string, env: Record<string, string | undefined>): Promise<ServerToken> {
  const file = join(storageDir, TOKEN_FILE_NAME);
  const fromEnv = env[TOKEN_ENV]?.trim();
  if (fromEnv) {
    if (fromEnv.length < MIN_TOKEN_LENGTH)
      throw new WeftError(
        'CONFIG_INVALID',
        `${TOKEN_ENV} is too short (${fromEnv.length} characters); use at least ${MIN_TOKEN_LENGTH}, e.g. the output of 'openssl rand -hex 32'.`,
      );
    registerSecret(fromEnv, TOKEN_ENV);
    return { token: fromEnv, source: 'env', file };
  }
  const stored = await readStored(file);
  if (stored !== undefined && stored !== '') {
    registerSecret(stored, TOKEN_ENV);
    return { token: stored, source: 'file', file };
  }
  await mkdir(storageDir, { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  try {
    // 'wx' when absent, so two servers starting at once cannot overwrite each other's token.
    await writeFile(file, `${token}\n`, { mode: 0o600, flag: stored === undefined ? 'wx' : 'w' });
  } catch (error) {
    // Another `weft mcp start` wrote it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const theirs = await readStored(file);
    if (!theirs) throw new WeftError('CONFIG_INVALID', `The MCP server token ${file} is empty or too short; delete it to get a new one.`);
    registerSecret(theirs, TOKEN_ENV);
    return { token: theirs, source: 'file', file };
  }
  registerSecret(token, TOKEN_ENV);
  return { token, source: 'created', file };
}
