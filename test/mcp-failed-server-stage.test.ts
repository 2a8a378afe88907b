/**
 * A tool stage whose MCP server failed to start fails naming that server and why, not with
 * a bare "Unknown tool" and the list of tools that did come up.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from './helpers/run-cli.js';
import { createSandbox, type Sandbox } from './fixtures/workflows-e2e/harness.js';

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'servers', 'fixture-server.mjs');

vi.setConfig({ testTimeout: 60_000 });

let box: Sandbox;
beforeEach(async () => {
  box = await createSandbox();
  await writeFile(
    join(box.ws, '.mcp.json'),
    JSON.stringify({ mcpServers: { broken: { command: 'node', args: [FIXTURE], env: { FIXTURE_EXIT_AT_START: '7' } } } }),
  );
});
afterEach(() => box.dispose());

describe('a tool stage on an MCP server that failed to start', () => {
  it('fails naming the server and its error', async () => {
    await writeFile(join(box.ws, 'echo.toml'), '[nodes.say]\nkind = "tool"\ntool = "mcp__broken__echo"\nargs = { message = "hi" }\n');
    const result = await box.cli(['run', 'echo.toml', '--detach', '--auto-approve']);
    expect(result.code, result.stderr).toBe(0);
    const id = result.stdout.trim();
    const waited = await box.cli(['wait', id, '--timeout', '50']);
    expect(waited.stdout).toMatch(new RegExp(`^${id}  failed`));
    const finished = (await box.events(id, '--json')).find((event) => event.type === 'stage-finished');
    const error = String((finished?.payload as { error?: string }).error);
    expect(error).toMatch(/^tool 'mcp__broken__echo' is not available: MCP server 'broken' is failed: /);
    expect(error).toContain('fatal: cannot open the database');
    expect(error).not.toContain('Unknown tool');
  });
});
