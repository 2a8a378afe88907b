/**
 * `weft mcp login | logout` through the real CLI against a local OAuth authorization
 * server and protected MCP server: the printed URL is what a browser would open.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOAuthFixture, type OAuthFixture } from './fixtures/oauth/oauth-fixture.js';
import { runCli, WEFT_BIN } from './helpers/run-cli.js';

let fixture: OAuthFixture;
let base: string;
let workspace: string;
let env: Record<string, string>;

beforeEach(async () => {
  fixture = await startOAuthFixture();
  base = await mkdtemp(join(tmpdir(), 'weft-cli-login-'));
  workspace = join(base, 'ws');
  await mkdir(workspace);
  env = { WEFT_HOME: join(base, 'home') };
  await writeFile(join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: { remote: { type: 'http', url: fixture.mcpUrl.href } } }));
});
afterEach(async () => {
  await fixture.close();
  await rm(base, { recursive: true, force: true });
});

/** Starts `weft mcp login remote`, plays the browser with the URL it prints, and returns its result. */
function login(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WEFT_BIN, 'mcp', 'login', 'remote'], {
      cwd: workspace,
      env: { ...process.env, ...env, PATH: '/usr/bin:/bin' },
    });
    let stdout = '';
    let stderr = '';
    let opened = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const url = /^\s+(http:\/\/\S+)$/m.exec(stderr)?.[1];
      if (url && !opened) {
        opened = true;
        fetch(url).then((response) => response.text(), reject);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('weft mcp login / logout', () => {
  it('a remote server needing auth says to log in; after login its tools work; logout forgets the tokens', async () => {
    const before = await runCli(['mcp', 'list', '--json'], { cwd: workspace, env });
    expect(JSON.parse(before.stdout)).toEqual([
      expect.objectContaining({ name: 'remote', status: 'failed', error: "[remote] needs authorization — run 'weft mcp login remote'" }),
    ]);

    const result = await login();
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Open this URL to authorize weft:');
    const tokenFile = join(base, 'home', 'mcp-oauth', 'remote.json');
    expect(result.stdout).toMatch(
      new RegExp(`^Logged in to 'remote'.*Tokens are stored in ${tokenFile.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\n$`),
    );
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);

    const tools = await runCli(['tools', 'list', '--server', 'remote', '--json'], { cwd: workspace, env });
    expect(tools.code).toBe(0);
    expect((JSON.parse(tools.stdout) as { name: string }[]).length).toBeGreaterThan(0);

    expect(await runCli(['mcp', 'logout', 'remote'], { cwd: workspace, env })).toMatchObject({
      code: 0,
      stdout: "Logged out of 'remote'.\n",
    });
    expect(existsSync(tokenFile)).toBe(false);
    expect(await runCli(['mcp', 'logout', 'remote'], { cwd: workspace, env })).toMatchObject({
      code: 0,
      stdout: "Nothing stored for 'remote'.\n",
    });
  });
});
