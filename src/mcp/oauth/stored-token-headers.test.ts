import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { redactSecrets } from '../../core/redact.js';
import { serverConfig } from '../../../test/fixtures/servers/hub-kit.js';
import { withStoredAccessTokens } from './stored-token-headers.js';
import { writeOAuthState } from './token-store.js';

const URL_A = 'https://mcp.example.com/mcp';
const TOKEN = 'stored-access-token-0123456789';
const NOW = Date.parse('2026-11-28T12:00:00Z');

let storageDir: string;
beforeEach(() => {
  storageDir = mkdtempSync(join(tmpdir(), 'weft-stored-token-'));
});
afterEach(() => rmSync(storageDir, { recursive: true, force: true }));

async function store(server: string, serverUrl: string, savedAt: number, expiresIn?: number): Promise<void> {
  await writeOAuthState(storageDir, {
    version: 1,
    server,
    serverUrl,
    tokens: { access_token: TOKEN, token_type: 'Bearer', ...(expiresIn === undefined ? {} : { expires_in: expiresIn }) },
    tokensSavedAt: savedAt,
  });
}

describe('withStoredAccessTokens', () => {
  it('adds the stored access token as the Authorization header of the server it was obtained for, and keeps it out of logs', async () => {
    await store('remote', URL_A, NOW - 1000, 3600);
    const [remote] = await withStoredAccessTokens(
      [serverConfig('remote', { type: 'http', url: URL_A, headers: { 'X-Team': 'a' } })],
      storageDir,
      NOW,
    );
    expect(remote!.headers).toEqual({ 'X-Team': 'a', Authorization: `Bearer ${TOKEN}` });
    expect(redactSecrets(`sent ${TOKEN}`)).not.toContain(TOKEN);
  });

  it('passes nothing for another endpoint, an expired token, an entry with its own Authorization or bearer variable, or a stdio server', async () => {
    await store('moved', 'https://old.example.com/mcp', NOW - 1000);
    await store('expired', URL_A, NOW - 7200_000, 3600);
    await store('own', URL_A, NOW);
    await store('variable', URL_A, NOW);
    await store('local', URL_A, NOW);
    const servers = [
      serverConfig('moved', { type: 'http', url: URL_A }),
      serverConfig('expired', { type: 'sse', url: URL_A }),
      serverConfig('own', { type: 'http', url: URL_A, headers: { authorization: 'Bearer mine' } }),
      serverConfig('variable', { type: 'http', url: URL_A, bearerTokenEnvVar: 'MY_TOKEN' }),
      serverConfig('local', { type: 'stdio', command: ['node', 'server.js'] }),
      serverConfig('never-logged-in', { type: 'http', url: URL_A }),
    ];
    expect(await withStoredAccessTokens(servers, storageDir, NOW)).toEqual(servers);
  });
});
