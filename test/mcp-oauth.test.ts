/**
 * OAuth for remote MCP servers against a real local authorization server and protected
 * MCP server: connecting without tokens, `loginMcpServer` through the loopback redirect
 * (state checked, PKCE, dynamic registration), tokens stored 0600 and used, expired
 * access tokens refreshed once however many calls hit them, revoked refresh tokens,
 * endpoint binding, secrets kept out of logs, pre-registered clients from config, and logout.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { redactSecrets } from '../src/core/redact.js';
import type { McpServerConfig } from '../src/mcp/config/server-config.js';
import type { McpHub } from '../src/mcp/hub/index.js';
import { loginMcpServer, logoutMcpServer, mcpOAuthStatus, type StoredOAuthState } from '../src/mcp/oauth/index.js';
import { startOAuthFixture, type OAuthFixture } from './fixtures/oauth/oauth-fixture.js';
import { createTestHub, serverConfig, toolContext, type TestHub } from './fixtures/servers/hub-kit.js';

const NEEDS_LOGIN = "[remote] needs authorization — run 'weft mcp login remote'";

/** What a browser does with the authorization URL: follow the consent redirect back to the loopback. */
async function browser(url: URL): Promise<void> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`the loopback answered ${response.status}`);
  await response.text();
}

describe('OAuth for remote MCP servers', () => {
  let fixture: OAuthFixture;
  let storageDir: string;
  const hubs: McpHub[] = [];

  beforeEach(async () => {
    fixture = await startOAuthFixture();
    storageDir = mkdtempSync(join(tmpdir(), 'weft-oauth-'));
  });

  afterEach(async () => {
    await Promise.all(hubs.splice(0).map((hub) => hub.close()));
    await fixture.close();
    rmSync(storageDir, { recursive: true, force: true });
  });

  const remote = (fields: Partial<McpServerConfig> = {}) => serverConfig('remote', { type: 'http', url: fixture.mcpUrl.href, ...fields });
  const tokenFile = () => join(storageDir, 'mcp-oauth', 'remote.json');
  const stored = () => JSON.parse(readFileSync(tokenFile(), 'utf8')) as StoredOAuthState;

  function testHub(withOAuth = true): TestHub {
    const kit = createTestHub(withOAuth ? { oauth: { storageDir } } : {});
    hubs.push(kit.hub);
    return kit;
  }

  const login = () => loginMcpServer({ config: remote(), storageDir, openUrl: browser });

  it('fails to connect without tokens, telling the person to log in, and writes nothing', async () => {
    const { hub } = testHub();
    const [status] = await hub.start([remote()]);
    expect(status).toMatchObject({ state: 'failed', error: NEEDS_LOGIN });
    expect(fixture.counts.rejectedBearer).toBeGreaterThan(0);
    expect(fixture.counts.registrations).toBe(0);
    expect(existsSync(join(storageDir, 'mcp-oauth'))).toBe(false);

    // A hub without a storage dir only reports the 401.
    const { hub: plain } = testHub(false);
    const [plainStatus] = await plain.start([remote()]);
    expect(plainStatus?.error).toMatch(/^HTTP 401 from .* — check headers or bearer_token_env_var, or log in with 'weft mcp login <name>'/);
  });

  it('logs in through the loopback redirect, stores the tokens 0600, and the hub then connects with them', async () => {
    const result = await login();
    expect(result).toMatchObject({ server: 'remote', serverUrl: fixture.mcpUrl.href, file: tokenFile(), refreshable: true, scope: 'mcp' });
    expect(Date.parse(result.expiresAt ?? '')).toBeGreaterThan(Date.now());
    expect(fixture.counts).toMatchObject({ registrations: 1, authorizations: 1, codeExchanges: 1 });

    expect(statSync(tokenFile()).mode & 0o777).toBe(0o600);
    expect(statSync(join(storageDir, 'mcp-oauth')).mode & 0o777).toBe(0o700);
    const state = stored();
    expect(state).toMatchObject({
      version: 1,
      server: 'remote',
      serverUrl: fixture.mcpUrl.href,
      clientInformation: { client_id: expect.stringMatching(/^client_/) },
    });
    expect(state.tokens?.access_token).toBe(fixture.liveAccessTokens()[0]);
    expect(state.codeVerifier).toBeUndefined();
    // Every token loaded or saved is redacted from anything weft prints.
    expect(redactSecrets(`token ${state.tokens?.access_token} and ${state.tokens?.refresh_token}`)).toBe(
      'token [redacted:oauth-access-token] and [redacted:oauth-refresh-token]',
    );

    const { hub, registry, records } = testHub();
    const [status] = await hub.start([remote()]);
    expect(status).toMatchObject({ state: 'ready', type: 'http', tools: 2 });
    expect(registry.list().map((tool) => tool.name)).toEqual(['mcp__remote__whoami', 'mcp__remote__echo']);
    expect(await registry.get('mcp__remote__whoami')?.execute({}, toolContext())).toMatchObject({
      content: [{ type: 'text', text: `client ${state.clientInformation?.client_id}` }],
    });
    expect(await mcpOAuthStatus('remote', storageDir)).toMatchObject({ loggedIn: true, refreshable: true, serverUrl: fixture.mcpUrl.href });
    const logged = records.map((record) => `${record.message} ${JSON.stringify(record.fields ?? {})}`).join('\n');
    expect(logged).not.toContain(state.tokens?.access_token);
  });

  it('logs in with a pre-registered client from config instead of registering one', async () => {
    fixture.preRegisterClient('weft-preregistered', ['http://127.0.0.1/callback']);
    const config = remote({ oauth: { clientId: 'weft-preregistered' } });
    await loginMcpServer({ config, storageDir, openUrl: browser });
    expect(fixture.counts).toMatchObject({ registrations: 0, authorizations: 1, codeExchanges: 1 });
    expect(stored().clientInformation).toMatchObject({ client_id: 'weft-preregistered' });

    const { hub, registry } = testHub();
    expect((await hub.start([config]))[0]).toMatchObject({ state: 'ready' });
    expect(await registry.get('mcp__remote__whoami')?.execute({}, toolContext())).toMatchObject({
      content: [{ type: 'text', text: 'client weft-preregistered' }],
    });
  });

  it('refuses to log in when the pre-registered client secret variable is unset, naming it', async () => {
    const config = remote({ oauth: { clientId: 'weft-preregistered', clientSecretEnv: 'WEFT_TEST_UNSET_SECRET' } });
    await expect(loginMcpServer({ config, storageDir, openUrl: browser, env: {} })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message:
        '[remote] oauth.client_secret_env names WEFT_TEST_UNSET_SECRET, which is not set — set WEFT_TEST_UNSET_SECRET to the client secret and log in again',
    });
    expect(fixture.counts).toMatchObject({ registrations: 0, authorizations: 0 });
  });

  it('checks the state of the redirect: a stray response is refused and the login still completes', async () => {
    const result = await loginMcpServer({
      config: remote(),
      storageDir,
      openUrl: async (url) => {
        const redirectUri = new URL(url.searchParams.get('redirect_uri') ?? '');
        redirectUri.search = new URLSearchParams({ code: 'forged', state: 'not-the-state' }).toString();
        const forged = await fetch(redirectUri);
        expect(forged.status).toBe(400);
        await forged.text();
        await browser(url);
      },
    });
    expect(result.refreshable).toBe(true);
    expect(fixture.counts.codeExchanges).toBe(1);
  });

  it('refreshes an expired access token once, however many calls run into it', async () => {
    await login();
    const { hub, registry } = testHub();
    await hub.start([remote()]);
    const before = stored().tokens?.access_token;

    fixture.expireAccessTokens();
    const echo = registry.get('mcp__remote__echo');
    const results = await Promise.all(['a', 'b', 'c'].map((message) => echo?.execute({ message }, toolContext())));
    expect(results.map((result) => result?.content)).toEqual([
      [{ type: 'text', text: 'echo: a' }],
      [{ type: 'text', text: 'echo: b' }],
      [{ type: 'text', text: 'echo: c' }],
    ]);
    expect(fixture.counts.refreshes).toBe(1);
    const after = stored();
    expect(after.tokens?.access_token).not.toBe(before);
    expect(fixture.liveAccessTokens()).toEqual([after.tokens?.access_token]);
    expect(statSync(tokenFile()).mode & 0o777).toBe(0o600);

    // A new connection with an expired stored token refreshes during the handshake.
    fixture.expireAccessTokens();
    const { hub: second } = testHub();
    const [status] = await second.start([remote()]);
    expect(status?.state).toBe('ready');
    expect(fixture.counts.refreshes).toBe(2);
  });

  it('asks for a new login when the refresh token no longer works', async () => {
    await login();
    const { hub, registry } = testHub();
    await hub.start([remote()]);
    fixture.expireAccessTokens();
    fixture.revokeRefreshTokens();
    await expect(registry.get('mcp__remote__echo')?.execute({ message: 'x' }, toolContext())).rejects.toMatchObject({
      message: NEEDS_LOGIN,
    });
    expect(stored().tokens).toBeUndefined();
    expect(await mcpOAuthStatus('remote', storageDir)).toMatchObject({ loggedIn: false });
  });

  it('sends tokens only to the endpoint they were obtained for', async () => {
    await login();
    const before = readFileSync(tokenFile(), 'utf8');
    const { hub } = testHub();
    const elsewhere = new URL(fixture.mcpUrl);
    elsewhere.searchParams.set('tenant', 'other');
    const [status] = await hub.start([remote({ url: elsewhere.href })]);
    expect(status).toMatchObject({ state: 'failed', error: NEEDS_LOGIN });
    expect(readFileSync(tokenFile(), 'utf8')).toBe(before);
  });

  it('logs in again reusing the registration, and logout removes the file', async () => {
    await login();
    await login();
    expect(fixture.counts).toMatchObject({ registrations: 1, authorizations: 2, codeExchanges: 2 });

    expect(await logoutMcpServer('remote', storageDir)).toBe(true);
    expect(existsSync(tokenFile())).toBe(false);
    expect(await logoutMcpServer('remote', storageDir)).toBe(false);
    const { hub } = testHub();
    const [status] = await hub.start([remote()]);
    expect(status?.error).toBe(NEEDS_LOGIN);
  });

  it('rejects login for servers that are not remote', async () => {
    await expect(loginMcpServer({ config: serverConfig('local', { command: ['x'] }), storageDir, openUrl: browser })).rejects.toMatchObject(
      {
        code: 'USAGE',
        message: "'local' is a stdio server; OAuth login is for http and sse servers",
      },
    );
  });
});
