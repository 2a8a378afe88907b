import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

let base: string;
let workspace: string;
let env: Record<string, string>;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'weft-cli-'));
  workspace = join(base, 'ws');
  await mkdir(workspace);
  env = { WEFT_HOME: join(base, 'home') };
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const BUILTINS = ['edit_file', 'glob', 'grep', 'list_dir', 'read_file', 'shell', 'web_fetch', 'write_file'];

describe('weft tools', () => {
  it('--version and --help work', async () => {
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(await runCli(['--version'], { cwd: workspace, env })).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    const help = await runCli(['tools', '--help'], { cwd: workspace, env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('list [options]');
    expect(help.stdout).toContain('call [options] <name>');
  });

  it('tools list --json lists the eight built-ins with schemas', async () => {
    const result = await runCli(['tools', 'list', '--json'], { cwd: workspace, env });
    expect(result.code).toBe(0);
    const tools = JSON.parse(result.stdout) as {
      name: string;
      source: string;
      server: string | null;
      description: string;
      inputSchema: { type: string };
    }[];
    expect(tools.map((t) => t.name).sort()).toEqual(BUILTINS);
    for (const tool of tools) {
      expect(tool).toMatchObject({ source: 'builtin', server: null, inputSchema: { type: 'object' } });
      expect(tool.description.length).toBeGreaterThan(20);
    }
  });

  it('tools call read_file prints the file with line numbers', async () => {
    await writeFile(join(workspace, 'notes.txt'), 'alpha\nbeta\n');
    const result = await runCli(['tools', 'call', 'read_file', '--args', '{"file_path":"notes.txt"}'], { cwd: workspace, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\s*1\talpha\n\s*2\tbeta\n/);
  });

  it('tools call shell echoes, and --cwd picks the workspace', async () => {
    const result = await runCli(['--cwd', workspace, 'tools', 'call', 'shell', '--args', '{"command":"echo hi; pwd"}', '--json'], {
      cwd: base,
      env,
    });
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as { isError: boolean; structuredContent: { exitCode: number; stdout: string } };
    expect(parsed.isError).toBe(false);
    expect(parsed.structuredContent.exitCode).toBe(0);
    expect(parsed.structuredContent.stdout).toMatch(/^hi\n.*\/ws\n$/);
  });

  it('tools call web_fetch refuses a loopback server until [tools.web_fetch] allow_hosts names it', async () => {
    const requests: string[] = [];
    const server = createServer((request, response) => {
      requests.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'text/plain' }).end('hello from loopback');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const args = [
        'tools',
        'call',
        'web_fetch',
        '--args',
        JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/page` }),
      ];
      const refused = await runCli(args, { cwd: workspace, env });
      expect(refused.code).toBe(1);
      expect(refused.stdout + refused.stderr).toContain('127.0.0.1 is a loopback address');
      expect(requests).toEqual([]);
      await mkdir(join(workspace, '.weft'));
      await writeFile(join(workspace, '.weft', 'settings.toml'), '[tools.web_fetch]\nallow_hosts = ["127.0.0.1"]\n');
      const reached = await runCli(args, { cwd: workspace, env });
      expect(reached.code, reached.stderr).toBe(0);
      expect(reached.stdout).toContain('hello from loopback');
      expect(requests).toEqual(['/page']);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('exits 1 when the tool result is an error', async () => {
    const result = await runCli(['tools', 'call', 'shell', '--args', '{"command":"exit 3"}'], { cwd: workspace, env });
    expect(result.code).toBe(1);
  });

  it('refuses an unknown tool with exit 2 and a hint', async () => {
    const result = await runCli(['tools', 'call', 'read', '--args', '{}'], { cwd: workspace, env });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: "weft: Unknown tool 'read'. Did you mean 'read_file'? Run 'weft tools list' to see every tool.\n",
    });
  });

  it('refuses malformed --args JSON with exit 2', async () => {
    const result = await runCli(['tools', 'call', 'shell', '--args', '{command:'], { cwd: workspace, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^weft: --args is not valid JSON \(.+\)\. Pass an object, e\.g\. --args '\{"command":"echo hi"\}'\.\n$/);
  });

  it('refuses arguments of the wrong type with exit 2, naming the path', async () => {
    const result = await runCli(['tools', 'call', 'shell', '--args', '{"command":42}'], { cwd: workspace, env });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: "weft: Invalid --args for 'shell': /command: must be string. Run 'weft tools list --json' to see its input schema.\n",
    });
  });

  it('exits 2 on usage errors with a helpful message', async () => {
    const missing = await runCli(['tools', 'call'], { cwd: workspace, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("error: missing required argument 'name'");
    const unknown = await runCli(['tols', 'list'], { cwd: workspace, env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('(Did you mean tools?)');
  });

  it('reports a settings TOML syntax error with exit 2 and writes nothing', async () => {
    await mkdir(join(workspace, '.weft'));
    await writeFile(join(workspace, '.weft/settings.toml'), '[tools\n');
    const result = await runCli(['tools', 'list'], { cwd: workspace, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^weft: .*\.weft\/settings\.toml:1:7: TOML syntax error: .+\. Fix the file or move it aside\.\n$/);
    await expect(readFile(join(base, 'home/settings.toml'))).rejects.toThrow(/ENOENT/);
  });

  it('reports an unknown settings key with exit 2', async () => {
    await mkdir(join(base, 'home'), { recursive: true });
    await writeFile(join(base, 'home/settings.toml'), 'colour = "blue"\n');
    const result = await runCli(['tools', 'list'], { cwd: workspace, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `weft: ${join(base, 'home/settings.toml')}: unknown key 'colour' (known keys: tools, approval, mcp, runs, workspace, run, schedules, log, store, cli, llm).\n`,
    );
  });

  it('--storage-dir wins over WEFT_HOME', async () => {
    const other = join(base, 'other');
    await mkdir(other);
    await writeFile(join(other, 'settings.toml'), 'bogus = 1\n');
    const result = await runCli(['--storage-dir', other, 'tools', 'list'], { cwd: workspace, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(join(other, 'settings.toml'));
  });
});
