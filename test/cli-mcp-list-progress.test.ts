import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, WEFT_BIN, runCli } from './helpers/run-cli.js';

const FIXTURE = join(REPO_ROOT, 'test/fixtures/servers/fixture-server.mjs');

let base: string;
let workspace: string;
let env: Record<string, string>;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'weft-cli-mcp-progress-'));
  workspace = join(base, 'ws');
  await mkdir(workspace);
  env = { WEFT_HOME: join(base, 'home') };
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('weft mcp list and get', () => {
  it('list prints each server when it is up, piped too: the quick one while the slow one still starts', async () => {
    const release = join(base, 'release-slow');
    await writeFile(
      join(workspace, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          slow: { command: 'node', args: [FIXTURE], env: { FIXTURE_START_WHEN: release } },
          quick: { command: 'node', args: [FIXTURE] },
        },
      }),
    );
    const child = spawn(process.execPath, [WEFT_BIN, 'mcp', 'list'], {
      cwd: workspace,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    const quickShown = new Promise<string>((resolve) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.includes('quick ')) resolve(stdout);
      });
    });
    const before = await quickShown;
    expect(before).toMatch(/^quick {2}stdio {2}ready {2}\d+ tools/);
    expect(before).not.toContain('slow');
    await writeFile(release, '');
    expect(await exited).toBe(0);
    expect(
      stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('  ').slice(0, 3).join(' ')),
    ).toEqual(['quick stdio ready', 'slow stdio ready']);
  });

  it('get of a server that fails to start exits 1 with the reason, in text and JSON', async () => {
    await writeFile(
      join(workspace, '.mcp.json'),
      JSON.stringify({ mcpServers: { broken: { command: 'node', args: [FIXTURE], env: { FIXTURE_EXIT_AT_START: '3' } } } }),
    );
    const text = await runCli(['mcp', 'get', 'broken'], { cwd: workspace, env });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('status: failed');
    const json = await runCli(['mcp', 'get', 'broken', '--json'], { cwd: workspace, env });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ config: { name: 'broken' }, status: { state: 'failed' } });
  });
});
