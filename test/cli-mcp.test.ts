import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from './helpers/run-cli.js';

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const MEMORY = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

let base: string;
let workspace: string;
let home: string;
let env: Record<string, string>;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'weft-cli-mcp-'));
  workspace = join(base, 'ws');
  home = join(base, 'home');
  await mkdir(workspace);
  env = { WEFT_HOME: home };
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('weft mcp', () => {
  it('add writes .mcp.json keeping the rest of the file, and the tools become callable', async () => {
    const original =
      '{\n    "mcpServers": {\n        "other": { "command": "does-not-matter", "disabled": true }\n    },\n    "keep": [1, 2]\n}\n';
    await writeFile(join(workspace, '.mcp.json'), original);
    const added = await runCli(['mcp', 'add', 'everything', '--', 'node', EVERYTHING, 'stdio'], { cwd: workspace, env });
    expect(added).toMatchObject({ code: 0, stdout: `Added MCP server 'everything' in ${join(workspace, '.mcp.json')}\n` });
    const written = JSON.parse(await readFile(join(workspace, '.mcp.json'), 'utf8')) as Record<string, unknown>;
    expect(written).toEqual({
      mcpServers: { other: { command: 'does-not-matter', disabled: true }, everything: { command: 'node', args: [EVERYTHING, 'stdio'] } },
      keep: [1, 2],
    });

    const listed = await runCli(['tools', 'list', '--json'], { cwd: workspace, env });
    expect(listed.code).toBe(0);
    const tools = JSON.parse(listed.stdout) as { name: string; source: string; server: string | null; description: string }[];
    expect(tools.find((tool) => tool.name === 'mcp__everything__echo')).toMatchObject({
      source: 'mcp',
      server: 'everything',
      description: expect.stringMatching(/^\[everything\] /),
    });
    expect(tools.filter((tool) => tool.source === 'builtin')).toHaveLength(8);

    const called = await runCli(['tools', 'call', 'mcp__everything__echo', '--args', '{"message":"hi"}'], { cwd: workspace, env });
    expect(called).toEqual({ code: 0, stdout: 'Echo: hi\n', stderr: '' });
  });

  it('list --json reports type, source, status, tool count and errors; a broken server does not stop the others', async () => {
    await writeFile(
      join(workspace, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          memory: { command: 'node', args: [MEMORY], env: { MEMORY_FILE_PATH: join(base, 'mem.jsonl') } },
          ghost: { command: 'weft-no-such-binary' },
          off: { command: 'x', disabled: true },
        },
      }),
    );
    const result = await runCli(['mcp', 'list', '--json'], { cwd: workspace, env });
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as {
      name: string;
      type: string;
      source: string;
      enabled: boolean;
      status: string;
      tools: number;
      error: string | null;
    }[];
    const byName = Object.fromEntries(rows.map((row) => [row.name, row]));
    expect(byName.memory).toEqual({
      name: 'memory',
      type: 'stdio',
      source: join(workspace, '.mcp.json'),
      enabled: true,
      status: 'ready',
      tools: 9,
      error: null,
    });
    expect(byName.off).toMatchObject({ enabled: false, status: 'disabled', tools: 0 });
    expect(byName.ghost).toMatchObject({
      status: 'failed',
      tools: 0,
      error: expect.stringContaining('command not found: weft-no-such-binary'),
    });
  });

  it('add --scope user appends to the user settings and keeps its comments; remove takes it out again', async () => {
    await mkdir(home, { recursive: true });
    const original = '# my settings\n[tools]\nshell_timeout = "30s" # short\n';
    await writeFile(join(home, 'settings.toml'), original);
    const added = await runCli(['mcp', 'add', 'mem', '--scope', 'user', '-e', 'MEMORY_FILE_PATH=/tmp/x.jsonl', '--', 'node', MEMORY], {
      cwd: workspace,
      env,
    });
    expect(added.code).toBe(0);
    const text = await readFile(join(home, 'settings.toml'), 'utf8');
    expect(text.startsWith(original)).toBe(true);
    expect(text).toContain('[mcp.servers.mem]');
    const got = await runCli(['mcp', 'get', 'mem', '--json'], { cwd: workspace, env });
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({
      config: { name: 'mem', type: 'stdio', command: ['node', MEMORY], env: ['MEMORY_FILE_PATH'] },
      status: { state: 'ready', tools: 9 },
    });
    const removed = await runCli(['mcp', 'remove', 'mem'], { cwd: workspace, env });
    expect(removed).toMatchObject({ code: 0, stdout: `Removed MCP server 'mem' from ${join(home, 'settings.toml')}\n` });
    expect(await readFile(join(home, 'settings.toml'), 'utf8')).toBe(original);
  });

  it('add-json accepts the Claude Code shape; invalid names and JSON are refused with exit 2 and nothing written', async () => {
    const ok = await runCli(['mcp', 'add-json', 'remote', '{"type":"http","url":"http://127.0.0.1:9/mcp"}'], { cwd: workspace, env });
    expect(ok.code).toBe(0);
    const before = await readFile(join(workspace, '.mcp.json'), 'utf8');
    const badName = await runCli(['mcp', 'add', 'bad name', '--', 'node', 'x'], { cwd: workspace, env });
    expect(badName.code).toBe(2);
    expect(badName.stderr).toMatch(/bad name/);
    const badJson = await runCli(['mcp', 'add-json', 'x', '{"command":'], { cwd: workspace, env });
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(/not valid/);
    const noUrl = await runCli(['mcp', 'add-json', 'y', '{"type":"http"}'], { cwd: workspace, env });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/'url'/);
    expect(await readFile(join(workspace, '.mcp.json'), 'utf8')).toBe(before);
  });

  it('test connects and reports timings; a failing server exits 1 with the reason', async () => {
    await writeFile(
      join(workspace, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          everything: { command: 'node', args: [EVERYTHING, 'stdio'] },
          broken: { command: 'node', args: ['-e', 'console.error("boom: missing config"); process.exit(3)'] },
        },
      }),
    );
    const good = await runCli(['mcp', 'test', 'everything', '--json'], { cwd: workspace, env });
    expect(good.code).toBe(0);
    const report = JSON.parse(good.stdout) as {
      ok: boolean;
      connectMs: number;
      tools: unknown[];
      resources: { count: number };
      prompts: { count: number };
    };
    expect(report.ok).toBe(true);
    expect(report.tools.length).toBeGreaterThan(5);
    expect(report.prompts.count).toBeGreaterThan(0);
    const bad = await runCli(['mcp', 'test', 'broken'], { cwd: workspace, env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("✗ MCP server 'broken' failed");
    expect(bad.stderr).toContain('boom: missing config');
  });

  it('get of an unknown server exits 2 naming the configured ones', async () => {
    await writeFile(join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: { a: { command: 'node', args: ['x'] } } }));
    const result = await runCli(['mcp', 'get', 'b'], { cwd: workspace, env });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: "weft: No MCP server named 'b'. Configured: a. Add one with 'weft mcp add b -- <command…>'.\n",
    });
  });

  it('every command that reads the config exits 2 on a .mcp.json that is not JSON, without quoting the file', async () => {
    await writeFile(join(workspace, '.mcp.json'), 'not json {"env": {"API_TOKEN": "sk-live-123456789"}}\n');
    const commands = [
      ['mcp', 'list'],
      ['mcp', 'list', '--json'],
      ['mcp', 'get', 'a'],
      ['mcp', 'test', 'a'],
      ['mcp', 'login', 'a'],
      ['mcp', 'logout', 'a'],
    ];
    const results = await Promise.all(commands.map((args) => runCli(args, { cwd: workspace, env })));
    const error = "weft: .mcp.json: is not valid JSON (Unexpected token 'o') — fix the syntax; its servers were skipped\n";
    expect(results).toEqual(commands.map(() => ({ code: 2, stdout: '', stderr: error })));
  });

  it('warns about keys weft does not use in a .mcp.json entry, naming the file, the server and the key', async () => {
    await writeFile(
      join(workspace, '.mcp.json'),
      JSON.stringify({ mcpServers: { a: { command: 'node', args: ['x'], tools: 5, oauth: 1, disabled: true } } }),
    );
    const result = await runCli(['mcp', 'list', '--json'], { cwd: workspace, env });
    expect(result).toMatchObject({ code: 0, stdout: expect.stringContaining('"name": "a"') });
    expect(result.stderr).toBe(
      "weft warn: .mcp.json: server 'a': field 'tools' is not used by weft and was ignored — remove it if it is a misspelling\n" +
        'weft warn: .mcp.json: server \'a\': field \'oauth\' does not apply to type "stdio" and was ignored — remove it, or set "type": "http"\n',
    );
  });
});
