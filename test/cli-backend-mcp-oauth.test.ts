/**
 * A CLI stage (Claude Code, Codex, Gemini CLI) uses a remote MCP server that needs an OAuth
 * access token, which weft holds from `weft mcp login`: the CLI connects to the server
 * itself with that token, written into its MCP config (0600, in the stage's folder, gone
 * when the stage ends); the token appears in no event. Real processes: `weft run`, the real
 * CLIs against the fake model server, a real authorization server and protected MCP server
 * on 127.0.0.1 (`test/fixtures/oauth/`).
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loginMcpServer } from '../src/mcp/oauth/index.js';
import { createSandbox, type Sandbox } from './fixtures/workflows-e2e/harness.js';
import { startModelServer, type ModelServer } from './fixtures/model-server/model-server.js';
import { startOAuthFixture, type OAuthFixture } from './fixtures/oauth/oauth-fixture.js';
import { serverConfig } from './fixtures/servers/hub-kit.js';
import { CLI_E2E_CASES } from './kits/cli-e2e-cases.js';

vi.setConfig({ testTimeout: 90_000 });

let box: Sandbox;
let oauth: OAuthFixture;
let model: ModelServer | undefined;

beforeEach(async () => {
  box = await createSandbox();
  oauth = await startOAuthFixture();
  model = undefined;
});

afterEach(async () => {
  await model?.close();
  await oauth.close();
  await box.dispose();
});

describe.each(CLI_E2E_CASES)('a $displayName stage and a remote MCP server weft is logged in to', (test) => {
  it("connects with weft's stored access token; the token is in no event and its config is gone after the stage", async () => {
    expect(test.binary !== undefined && existsSync(test.binary)).toBe(true);
    // `weft mcp login remote`, in-process against the same storage dir; the browser follows the consent redirect.
    await loginMcpServer({
      config: serverConfig('remote', { type: 'http', url: oauth.mcpUrl.href }),
      storageDir: box.home,
      openUrl: async (url) => void (await (await fetch(url)).text()),
    });
    const [token] = oauth.liveAccessTokens();
    expect(token).toBeDefined();

    model = await startModelServer({
      script: (request) => {
        const result = request.messages.find((message) => message.role === 'tool');
        return result === undefined
          ? { toolCalls: [test.mcpCall('remote', 'whoami', {})] }
          : { text: `the server said: ${result.content}` };
      },
    });
    await mkdir(join(box.ws, '.weft'), { recursive: true });
    await writeFile(join(box.ws, '.weft', 'settings.toml'), `[cli.${test.cli}]\npath = "${test.binary}"\n`);
    await writeFile(join(box.ws, '.mcp.json'), JSON.stringify({ mcpServers: { remote: { type: 'http', url: oauth.mcpUrl.href } } }));
    await writeFile(
      join(box.ws, 'remote.toml'),
      [
        '[workflow]',
        'name = "remote"',
        'start = "code"',
        '[run]',
        'approval = [{ pattern = "mcp__remote__*", action = "allow" }]',
        '[nodes.code]',
        'kind = "agent"',
        `cli = "${test.cli}"`,
        `model = "${test.model}"`,
        'prompt = "Who am I?"',
      ].join('\n'),
    );

    const detached = await box.cli(['run', 'remote.toml', '--detach', '--auto-approve'], test.env(model));
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();
    expect((await box.cli(['wait', id, '--timeout', '60'])).stdout).toBe(`${id}  succeeded\n`);
    const events = await box.events(id, '--json');
    const finished = events.find((event) => event.type === 'stage-finished' && event.stageId === 'code@1');
    // The protected server answered the CLI: the token weft stored was accepted (the fixture registers weft's client dynamically).
    expect(String(finished!.payload.output)).toMatch(/^the server said: .*client client_\w+/s);
    expect(events.filter((event) => event.type === 'tool-call-finished').map((event) => event.payload.isError)).toEqual([false]);
    expect(JSON.stringify(events)).not.toContain(token);
    expect(existsSync(join(box.home, 'cli-stages', id))).toBe(false);
  });
});
