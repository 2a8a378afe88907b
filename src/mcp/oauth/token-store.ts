/**
 * The OAuth state weft keeps per MCP server in `<storageDir>/mcp-oauth/<server>.json`
 * (directory mode 0700, file mode 0600): the dynamic client registration, the tokens,
 * the PKCE code verifier of a login in progress and the discovered metadata, bound to
 * the endpoint they were obtained for. Every secret read or written is registered with
 * the redactor, so it never shows up in logs or errors.
 */
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import { WeftError } from '../../core/errors.js';
import { registerSecret } from '../../core/redact.js';
import { MCP_SERVER_NAME } from '../config/server-config.js';

export interface StoredOAuthState {
  version: 1;
  server: string;
  /** The MCP endpoint the credentials were obtained for; no other URL ever gets them. */
  serverUrl: string;
  /** The loopback redirect URI the client was registered with. */
  redirectUrl?: string;
  clientInformation?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
  /** When `tokens` were saved (ms since the epoch); with `expires_in` it dates their expiry. */
  tokensSavedAt?: number;
  /** The PKCE verifier of a login in progress. */
  codeVerifier?: string;
  discoveryState?: OAuthDiscoveryState;
}

const DIR = 'mcp-oauth';
const writes = new Map<string, Promise<void>>();

export function oauthDir(storageDir: string): string {
  return join(storageDir, DIR);
}

export function oauthStatePath(storageDir: string, server: string): string {
  if (!MCP_SERVER_NAME.test(server)) {
    throw new WeftError('USAGE', `'${server}' is not an MCP server name — names use letters, digits, '_' and '-'`, { data: { server } });
  }
  return join(oauthDir(storageDir), `${server}.json`);
}

/** An empty state for `server` at `serverUrl`. */
export function emptyOAuthState(server: string, serverUrl: string): StoredOAuthState {
  return { version: 1, server, serverUrl };
}

/** The stored state, or `undefined` when there is none. */
export async function readOAuthState(storageDir: string, server: string): Promise<StoredOAuthState | undefined> {
  const file = oauthStatePath(storageDir, server);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const state = parseState(text);
  if (!state) {
    throw new WeftError(
      'CONFIG_INVALID',
      `${file} is not a valid weft OAuth file — run 'weft mcp logout ${server}' and 'weft mcp login ${server}' again`,
      {
        data: { server, file },
      },
    );
  }
  registerStateSecrets(state);
  return state;
}

/** Replaces the stored state atomically (temp file + rename), file 0600 in a 0700 directory. */
export function writeOAuthState(storageDir: string, state: StoredOAuthState): Promise<void> {
  const file = oauthStatePath(storageDir, state.server);
  registerStateSecrets(state);
  const text = `${JSON.stringify(state, null, 2)}\n`;
  return serialised(file, async () => {
    const dir = oauthDir(storageDir);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
    const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temp, text, { mode: 0o600 });
    try {
      await chmod(temp, 0o600);
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  });
}

/** Deletes the stored state; false when there was none. */
export function deleteOAuthState(storageDir: string, server: string): Promise<boolean> {
  const file = oauthStatePath(storageDir, server);
  return serialised(file, async () => {
    try {
      await rm(file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  });
}

/** When the stored access token expires, if the server said. */
export function tokenExpiry(state: StoredOAuthState): Date | undefined {
  const expiresIn = state.tokens?.expires_in;
  if (expiresIn === undefined || state.tokensSavedAt === undefined) return undefined;
  return new Date(state.tokensSavedAt + expiresIn * 1000);
}

export function registerStateSecrets(state: StoredOAuthState): void {
  registerSecret(state.tokens?.access_token, 'oauth-access-token');
  registerSecret(state.tokens?.refresh_token, 'oauth-refresh-token');
  registerSecret(state.tokens?.id_token, 'oauth-id-token');
  registerSecret(state.clientInformation?.client_secret, 'oauth-client-secret');
  registerSecret(state.codeVerifier, 'oauth-code-verifier');
}

/** Runs the file operations on one file one after another (one process, many providers). */
function serialised<T>(file: string, run: () => Promise<T>): Promise<T> {
  const previous = writes.get(file) ?? Promise.resolve();
  const result = previous.then(run, run);
  const settled = result.then(
    () => undefined,
    () => undefined,
  );
  writes.set(file, settled);
  void settled.then(() => {
    if (writes.get(file) === settled) writes.delete(file);
  });
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseState(text: string): StoredOAuthState | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || value.version !== 1 || typeof value.server !== 'string' || typeof value.serverUrl !== 'string') return undefined;
  const { tokens, clientInformation } = value;
  if (tokens !== undefined && !(isRecord(tokens) && typeof tokens.access_token === 'string' && typeof tokens.token_type === 'string'))
    return undefined;
  if (clientInformation !== undefined && !(isRecord(clientInformation) && typeof clientInformation.client_id === 'string'))
    return undefined;
  return value as unknown as StoredOAuthState;
}
