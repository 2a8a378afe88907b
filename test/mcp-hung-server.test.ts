/**
 * An MCP server that never answers `initialize`, configured with a startup_timeout far
 * longer than these tests may take: a run whose stages do not use it, and `weft tools
 * list`, go on without it instead of waiting that long, and the server process does not
 * outlive the command.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from './helpers/run-cli.js';
import { createSandbox, isAlive, readPid, until, type Sandbox } from './fixtures/workflows-e2e/harness.js';

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'servers', 'fixture-server.mjs');

vi.setConfig({ testTimeout: 60_000 });

let box: Sandbox;
beforeEach(async () => {
  box = await createSandbox();
  await writeFile(
    join(box.ws, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        good: { command: 'node', args: [FIXTURE], env: { FIXTURE_NAME: 'good' } },
        hung: {
          command: 'node',
          args: [FIXTURE],
          env: { FIXTURE_NO_HANDSHAKE: '1', FIXTURE_PID_FILE: join(box.base, 'hung.pid') },
          startup_timeout: '10m',
        },
      },
    }),
  );
});
afterEach(async () => {
  const hung = await readPid(join(box.base, 'hung.pid'));
  if (hung !== undefined && (await isAlive(hung))) process.kill(hung, 'SIGKILL');
  await box.dispose();
});

async function hungServerGone(): Promise<void> {
  const pid = await until('the hung server to have started', () => readPid(join(box.base, 'hung.pid')));
  await until('the hung server to be stopped', async () => ((await isAlive(pid)) ? undefined : true));
}

describe('an MCP server that never answers initialize', () => {
  it('does not hold up a run whose stages do not use it', async () => {
    await writeFile(join(box.ws, 'echo.toml'), '[nodes.say]\nkind = "tool"\ntool = "mcp__good__echo"\nargs = { message = "hi" }\n');
    const result = await box.cli(['run', 'echo.toml', '--detach', '--auto-approve']);
    expect(result.code, result.stderr).toBe(0);
    const id = result.stdout.trim();
    const waited = await box.cli(['wait', id, '--timeout', '50']);
    expect(waited.stdout).toBe(`${id}  succeeded\n`);
    const finished = (await box.events(id, '--json')).find((event) => event.type === 'tool-call-finished');
    expect(finished?.payload).toMatchObject({ tool: 'mcp__good__echo', isError: false, text: 'echo: hi' });
    await hungServerGone();
  });

  it('is left out of `weft tools list`, which says so and how to wait for it', async () => {
    const listed = await box.cli(['tools', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const names = (JSON.parse(listed.stdout) as { name: string; server: string | null }[])
      .filter((tool) => tool.server !== null)
      .map((tool) => tool.name);
    expect(names).toContain('mcp__good__echo');
    expect(names.some((name) => name.startsWith('mcp__hung__'))).toBe(false);
    expect(listed.stderr).toContain(
      "weft: MCP server 'hung' has not answered within 3s and is left out; 'weft tools list --server hung' waits for it",
    );
    await hungServerGone();
  });
});
