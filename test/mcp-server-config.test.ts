/**
 * `weft mcp config` and `weft mcp init <client>`: the printed entry launches a working
 * server, and init edits only the `weft` member of existing config files (every other
 * byte kept, idempotent, `.bak` of the previous file) in a temp HOME.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, WEFT_BIN } from './helpers/run-cli.js';

const CLAUDE_JSON = `{
    "numStartups": 42,
    "theme": "dark",
    "mcpServers": {
        "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }
    },
    "projects": {"/work/x": {"allowedTools": [], "history": ["a", "b"]}}
}`;

describe('weft mcp config / init', () => {
  let home: string;
  let project: string;
  let storage: string;
  let env: Record<string, string>;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'weft-home-'));
    project = join(home, 'project');
    storage = join(home, 'weft-store');
    mkdirSync(project);
    env = { HOME: home, WEFT_HOME: '' };
  });

  afterEach(() => rmSync(home, { recursive: true, force: true }));

  const weft = (...args: string[]) => runCli(['--storage-dir', storage, ...args], { cwd: project, env });

  const expectedEntry = (claude: boolean) => ({
    ...(claude ? { type: 'stdio' } : {}),
    command: process.execPath,
    args: [WEFT_BIN, '--storage-dir', storage, 'mcp', 'start'],
    env: {},
  });

  it('prints the entry for each client, and it launches a working server', async () => {
    const claude = await weft('mcp', 'config');
    expect(claude.code, claude.stderr).toBe(0);
    expect(JSON.parse(claude.stdout)).toEqual({ mcpServers: { weft: expectedEntry(true) } });
    const cursor = await weft('mcp', 'config', '--client', 'cursor');
    expect(JSON.parse(cursor.stdout)).toEqual({ mcpServers: { weft: expectedEntry(false) } });
    // Codex reads TOML: the table to paste into its config.toml.
    const codex = await weft('mcp', 'config', '--client', 'codex');
    expect(codex.code, codex.stderr).toBe(0);
    expect(codex.stdout).toMatch(/^\[mcp_servers\.weft\]\n/);
    expect(JSON.parse(JSON.stringify(parseToml(codex.stdout)))).toEqual({
      mcp_servers: { weft: { command: process.execPath, args: [WEFT_BIN, '--storage-dir', storage, 'mcp', 'start'] } },
    });
    const bogus = await weft('mcp', 'config', '--client', 'vim');
    expect(bogus).toMatchObject({ code: 2, stderr: expect.stringContaining('--client must be one of claude, cursor, windsurf') });

    const entry = (JSON.parse(claude.stdout) as { mcpServers: { weft: { command: string; args: string[] } } }).mcpServers.weft;
    const client = new Client({ name: 'config-check', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, cwd: project, stderr: 'ignore' }));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('weft_run_create');
    } finally {
      await client.close();
    }
  });

  it('merges into ~/.claude.json keeping every other byte, idempotently, with a .bak', async () => {
    const file = join(home, '.claude.json');
    writeFileSync(file, CLAUDE_JSON);
    chmodSync(file, 0o600);
    const first = await weft('mcp', 'init', 'claude');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`Added the weft MCP server to ${file} (previous file kept as ${file}.bak).`);
    const after = readFileSync(file, 'utf8');
    const cut = CLAUDE_JSON.indexOf('"@modelcontextprotocol/server-memory"] }') + '"@modelcontextprotocol/server-memory"] }'.length;
    const inserted = after.slice(cut, after.length - (CLAUDE_JSON.length - cut));
    expect(after.slice(0, cut)).toBe(CLAUDE_JSON.slice(0, cut));
    expect(after.slice(cut + inserted.length)).toBe(CLAUDE_JSON.slice(cut));
    expect(inserted).toMatch(/^,\n {8}"weft": \{\n {12}"type": "stdio",\n/);
    expect(JSON.parse(after)).toEqual({
      ...JSON.parse(CLAUDE_JSON),
      mcpServers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }, weft: expectedEntry(true) },
    });
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe(CLAUDE_JSON);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(`${file}.bak`).mode & 0o777).toBe(0o600);

    const second = await weft('mcp', 'init', 'claude', '--scope', 'user');
    expect(second).toMatchObject({ code: 0, stdout: `weft is already configured in ${file}; nothing changed.\n` });
    expect(readFileSync(file, 'utf8')).toBe(after);
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe(CLAUDE_JSON);

    const moved = await runCli(['--storage-dir', join(home, 'elsewhere'), 'mcp', 'init', 'claude'], { cwd: project, env });
    expect(moved.stdout).toContain(`Updated the weft MCP server in ${file}`);
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.weft.args).toContain(join(home, 'elsewhere'));
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe(after);
  });

  it("writes a portable project .mcp.json (npx, no machine paths) that launches the project's weft, and ~/.cursor/mcp.json", async () => {
    const project1 = await runCli(['mcp', 'init', 'claude', '--scope', 'project'], { cwd: project, env });
    expect(project1.code, project1.stderr).toBe(0);
    expect(project1.stdout).toContain(`Created ${join(project, '.mcp.json')} with the weft MCP server.`);
    expect(project1.stdout).toContain('Claude Code asks each user to approve project servers from .mcp.json');
    const shared = readFileSync(join(project, '.mcp.json'), 'utf8');
    expect(JSON.parse(shared)).toEqual({
      mcpServers: { weft: { type: 'stdio', command: 'npx', args: ['--no', 'weft', 'mcp', 'start'], env: {} } },
    });
    expect(shared).not.toContain(home);
    expect(existsSync(join(project, '.mcp.json.bak'))).toBe(false);
    // A storage dir is written only when asked for.
    await weft('mcp', 'init', 'claude', '--scope', 'project');
    expect(JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8')).mcpServers.weft.args).toEqual([
      '--no',
      'weft',
      '--storage-dir',
      storage,
      'mcp',
      'start',
    ]);

    // The entry as committed starts the weft installed in the project.
    mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(WEFT_BIN, join(project, 'node_modules', '.bin', 'weft'));
    writeFileSync(join(project, 'package.json'), '{"name":"app","version":"1.0.0","private":true}');
    const entry = (JSON.parse(shared) as { mcpServers: { weft: { command: string; args: string[] } } }).mcpServers.weft;
    const client = new Client({ name: 'portable-check', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: entry.command,
        args: entry.args,
        cwd: project,
        env: { ...(process.env as Record<string, string>), HOME: home, WEFT_HOME: storage },
        stderr: 'ignore',
      }),
    );
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('weft_run_gather');
    } finally {
      await client.close();
    }

    const cursor = await weft('mcp', 'init', 'cursor');
    expect(cursor.code, cursor.stderr).toBe(0);
    const cursorFile = join(home, '.cursor', 'mcp.json');
    expect(JSON.parse(readFileSync(cursorFile, 'utf8'))).toEqual({ mcpServers: { weft: expectedEntry(false) } });
    expect(statSync(cursorFile).mode & 0o777).toBe(0o600);
  });

  it('keeps a compact Windsurf config compact, and refuses a project scope for Windsurf', async () => {
    const dir = join(home, '.codeium', 'windsurf');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'mcp_config.json');
    const original = '{"mcpServers":{"github":{"command":"gh-mcp","env":{"TOKEN":"${env:GH}"}}},"other":true}';
    writeFileSync(file, original);
    const done = await weft('mcp', 'init', 'windsurf');
    expect(done.code, done.stderr).toBe(0);
    const after = readFileSync(file, 'utf8');
    expect(after).toBe(original.replace('}}},"other"', `}},"weft":${JSON.stringify(expectedEntry(false))}},"other"`));
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe(original);
    expect((await weft('mcp', 'init', 'windsurf')).stdout).toContain('nothing changed');

    const project2 = await weft('mcp', 'init', 'windsurf', '--scope', 'project');
    expect(project2).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Windsurf reads MCP servers only from ~/.codeium/windsurf/mcp_config.json'),
    });
  });

  it("writes [mcp_servers.weft] into Codex's config.toml ($CODEX_HOME), keeping every other byte, idempotently, with a .bak", async () => {
    const codexHome = join(home, 'codex-home');
    mkdirSync(codexHome);
    const file = join(codexHome, 'config.toml');
    const original =
      '# my codex\nmodel = "o3"\n\n[mcp_servers.weft]\ncommand = "old"\n\n[mcp_servers.weft.env]\nX = "1"\n\n[mcp_servers.docs]\ncommand = "docs-mcp" # keep\n';
    writeFileSync(file, original);
    const codexEnv = { ...env, CODEX_HOME: codexHome };
    const done = await runCli(['--storage-dir', storage, 'mcp', 'init', 'codex'], { cwd: project, env: codexEnv });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(`Updated the weft MCP server in ${file} (previous file kept as ${file}.bak).`);
    const after = readFileSync(file, 'utf8');
    expect(after).toBe(
      `# my codex\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-mcp" # keep\n\n[mcp_servers.weft]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [ ${JSON.stringify(WEFT_BIN)}, "--storage-dir", ${JSON.stringify(storage)}, "mcp", "start" ]\n`,
    );
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe(original);
    const again = await runCli(['--storage-dir', storage, 'mcp', 'init', 'codex'], { cwd: project, env: codexEnv });
    expect(again.stdout).toContain('nothing changed');
    expect(readFileSync(file, 'utf8')).toBe(after);
    // Without $CODEX_HOME: ~/.codex/config.toml, created.
    const fresh = await weft('mcp', 'init', 'codex');
    expect(fresh.stdout).toContain(`Created ${join(home, '.codex', 'config.toml')}`);
    expect(await weft('mcp', 'init', 'codex', '--scope', 'project')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('use --scope user'),
    });
  });

  it('refuses to touch a config file that is not valid JSON, and unknown clients', async () => {
    const file = join(home, '.claude.json');
    writeFileSync(file, '{ "mcpServers": { "a": ');
    const broken = await weft('mcp', 'init', 'claude');
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/\.claude\.json: is not valid JSON .* nothing was written/);
    expect(readFileSync(file, 'utf8')).toBe('{ "mcpServers": { "a": ');
    expect(existsSync(`${file}.bak`)).toBe(false);
    expect(await weft('mcp', 'init', 'vscode')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('<client> must be one of claude, cursor, windsurf, codex'),
    });
    expect(await weft('mcp', 'init', 'claude', '--scope', 'global')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--scope must be 'user' or 'project'"),
    });
  });
});
