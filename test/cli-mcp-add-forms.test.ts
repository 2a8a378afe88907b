import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from './helpers/run-cli.js';

const MEMORY = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

let base: string;
let workspace: string;
let weftHome: string;
let userHome: string;
let env: Record<string, string>;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'weft-cli-mcp-forms-'));
  workspace = join(base, 'ws');
  weftHome = join(base, 'weft-home');
  userHome = join(base, 'user');
  await mkdir(workspace);
  await mkdir(userHome);
  env = { WEFT_HOME: weftHome, HOME: userHome, CODEX_HOME: join(userHome, 'codex') };
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function servers(cwd = workspace): Promise<Record<string, { type: string; source: string; status: string }>> {
  const listed = await runCli(['mcp', 'list', '--json'], { cwd, env });
  expect(listed.code).toBe(0);
  return Object.fromEntries(
    (JSON.parse(listed.stdout) as { name: string; type: string; source: string; status: string }[]).map((row) => [row.name, row]),
  );
}

describe('weft mcp add: Claude Code and Codex forms', () => {
  it("takes Claude Code's positional URL with --transport/-t, -s and -H; a URL alone means http; a transport without a URL is refused", async () => {
    const http = await runCli(['mcp', 'add', '--transport', 'http', 'remote', 'http://127.0.0.1:9/mcp', '-H', 'X-Team: infra'], {
      cwd: workspace,
      env,
    });
    expect(http).toMatchObject({ code: 0, stdout: `Added MCP server 'remote' in ${join(workspace, '.mcp.json')}\n` });
    const bare = await runCli(['mcp', 'add', 'plain', 'https://example.com/mcp'], { cwd: workspace, env });
    expect(bare.code).toBe(0);
    expect(JSON.parse(await readFile(join(workspace, '.mcp.json'), 'utf8'))).toEqual({
      mcpServers: {
        remote: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { 'X-Team': 'infra' } },
        plain: { type: 'http', url: 'https://example.com/mcp' },
      },
    });

    const sse = await runCli(['mcp', 'add', '-t', 'sse', '-s', 'user', 'events', 'http://127.0.0.1:9/sse'], { cwd: workspace, env });
    expect(sse.code).toBe(0);
    expect(await readFile(join(weftHome, 'settings.toml'), 'utf8')).toContain(
      '[mcp.servers.events]\ntype = "sse"\nurl = "http://127.0.0.1:9/sse"\n',
    );

    const missing = await runCli(['mcp', 'add', '--transport', 'http', 'nourl'], { cwd: workspace, env });
    expect(missing).toMatchObject({
      code: 2,
      stderr: "weft: --transport http needs the server's URL: weft mcp add --transport http nourl https://example.com/mcp\n",
    });
    const stdioUrl = await runCli(['mcp', 'add', '-t', 'stdio', 'x', 'https://example.com/mcp'], { cwd: workspace, env });
    expect(stdioUrl.code).toBe(2);
  });

  it('--scope local keeps the server out of the project tree, for this project only; remove finds it there', async () => {
    const added = await runCli(
      ['mcp', 'add', '-s', 'local', 'mem', '-e', `MEMORY_FILE_PATH=${join(base, 'mem.jsonl')}`, '--', 'node', MEMORY],
      { cwd: workspace, env },
    );
    expect(added.code).toBe(0);
    const file = added.stdout.replace(/^Added MCP server 'mem' in /, '').trim();
    expect(file.startsWith(join(weftHome, 'projects'))).toBe(true);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ mcpServers: { mem: { command: 'node', args: [MEMORY] } } });
    expect((await servers()).mem).toMatchObject({ type: 'stdio', source: file, status: 'ready' });

    const other = join(base, 'other-project');
    await mkdir(other);
    expect(await servers(other)).toEqual({});

    const removed = await runCli(['mcp', 'remove', 'mem'], { cwd: workspace, env });
    expect(removed).toMatchObject({ code: 0, stdout: `Removed MCP server 'mem' from ${file}\n` });
    expect(await servers()).toEqual({});
  });

  it("accepts Codex's startup_timeout_sec and tool_timeout_sec (seconds) in .mcp.json and settings, and writes them as durations", async () => {
    const json = JSON.stringify({ command: 'node', args: [MEMORY], startup_timeout_sec: 20, tool_timeout_sec: 1.5 });
    expect((await runCli(['mcp', 'add-json', 'mem', json], { cwd: workspace, env })).code).toBe(0);
    const got = await runCli(['mcp', 'get', 'mem', '--json'], { cwd: workspace, env });
    expect(JSON.parse(got.stdout)).toMatchObject({ config: { startupTimeoutMs: 20_000, toolTimeoutMs: 1_500 } });

    expect((await runCli(['mcp', 'add-json', 'mem2', json, '--scope', 'user'], { cwd: workspace, env })).code).toBe(0);
    expect(await readFile(join(weftHome, 'settings.toml'), 'utf8')).toContain('startup_timeout = "20s"\ntool_timeout = "1.5s"\n');
    const both = await runCli(['mcp', 'add-json', 'bad', JSON.stringify({ command: 'x', startup_timeout: '5s', startup_timeout_sec: 5 })], {
      cwd: workspace,
      env,
    });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("'startup_timeout_sec' duplicates 'startup_timeout'");
  });
});

describe('weft mcp import', () => {
  it("copies Codex's [mcp_servers] into the user settings, headers and timeouts included; names already there are skipped", async () => {
    await mkdir(join(userHome, 'codex'));
    await writeFile(
      join(userHome, 'codex', 'config.toml'),
      [
        'model = "o3"',
        '[mcp_servers.memory]',
        `command = "node"`,
        `args = [${JSON.stringify(MEMORY)}]`,
        'startup_timeout_sec = 30',
        '[mcp_servers.docs]',
        'url = "https://example.com/mcp"',
        'http_headers = { "X-Team" = "infra" }',
        'env_http_headers = { "Authorization" = "DOCS_TOKEN" }',
        '',
      ].join('\n'),
    );
    const imported = await runCli(['mcp', 'import', 'codex', '--json'], { cwd: workspace, env });
    expect(imported.code).toBe(0);
    const settingsFile = join(weftHome, 'settings.toml');
    expect(JSON.parse(imported.stdout)).toEqual({
      from: join(userHome, 'codex', 'config.toml'),
      servers: [
        { name: 'memory', outcome: 'added', file: settingsFile, reason: null },
        { name: 'docs', outcome: 'added', file: settingsFile, reason: null },
      ],
    });
    const got = await runCli(['mcp', 'get', 'memory', '--json'], { cwd: workspace, env });
    expect(JSON.parse(got.stdout)).toMatchObject({ config: { startupTimeoutMs: 30_000 }, status: { state: 'ready' } });
    expect(await readFile(settingsFile, 'utf8')).toContain(
      '[mcp.servers.docs.headers]\nX-Team = "infra"\nAuthorization = "${DOCS_TOKEN}"\n',
    );

    const again = await runCli(['mcp', 'import', 'codex'], { cwd: workspace, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^skipped memory: .*already exists.*\nskipped docs: .*already exists/);
  });

  it("copies Claude Code's user and this project's local servers; a missing config is an error naming the file", async () => {
    await writeFile(
      join(userHome, '.claude.json'),
      JSON.stringify({
        mcpServers: { everywhere: { type: 'http', url: 'https://example.com/a' } },
        projects: {
          [workspace]: { mcpServers: { here: { command: 'node', args: [MEMORY] } } },
          '/elsewhere': { mcpServers: { there: { command: 'x' } } },
        },
      }),
    );
    const imported = await runCli(['mcp', 'import', 'claude', '-s', 'project'], { cwd: workspace, env });
    expect(imported).toMatchObject({
      code: 0,
      stdout: `added everywhere → ${join(workspace, '.mcp.json')}\nadded here → ${join(workspace, '.mcp.json')}\n`,
    });
    expect(Object.keys(await servers()).sort()).toEqual(['everywhere', 'here']);

    const cursor = await runCli(['mcp', 'import', 'cursor'], { cwd: workspace, env });
    expect(cursor).toMatchObject({
      code: 2,
      stderr: `weft: No cursor config at ${join(userHome, '.cursor', 'mcp.json')}: nothing to import.\n`,
    });
    const unknown = await runCli(['mcp', 'import', 'vscode'], { cwd: workspace, env });
    expect(unknown).toMatchObject({ code: 2, stderr: "weft: Cannot import from 'vscode': use one of codex, claude, cursor.\n" });
  });
});
