// Loading MCP server configs from real files: precedence, defaults, aliases and source recording.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger, memorySink } from '../../core/logger.js';
import { loadMcpServerConfigs, resolveServerConfig, type LoadMcpServerConfigsParams } from './load-configs.js';
import type { McpServerConfig } from './server-config.js';

let base: string;
let root: string;
let home: string;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'weft-mcp-load-'));
  root = path.join(base, 'ws');
  home = path.join(base, 'home');
  await mkdir(path.join(root, '.cursor'), { recursive: true });
  await mkdir(path.join(home, '.weft'), { recursive: true });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function writeMcpJson(relative: string, servers: Record<string, unknown>): Promise<void> {
  await writeFile(path.join(root, relative), `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`);
}

function userSettings(servers: Record<string, unknown>) {
  return { file: path.join(home, '.weft', 'settings.toml'), data: { mcp: { servers } } };
}

function projectSettings(servers: Record<string, unknown>) {
  return { file: path.join(root, '.weft', 'settings.toml'), data: { mcp: { servers } } };
}

async function load(extra: Partial<LoadMcpServerConfigsParams> = {}) {
  const { sink, records } = memorySink();
  const result = await loadMcpServerConfigs({ workspaceRoot: root, homeDir: home, env: {}, logger: createLogger(sink), ...extra });
  return { ...result, records, byName: (name: string) => result.servers.find((server) => server.name === name) };
}

describe('precedence', () => {
  it('takes each server whole from its highest source and records where it came from', async () => {
    await writeMcpJson('.mcp.json', {
      shared: { command: 'json-server', args: ['--json'], env: { ONLY_JSON: '1' } },
      proj: { command: 'from-mcp-json' },
      json: { command: 'json-wins', args: ['a'] },
    });
    await writeMcpJson('.cursor/mcp.json', {
      shared: { command: 'cursor-server' },
      json: { command: 'cursor-loses', env: { CURSOR: '1' } },
      cursor: { url: 'https://cursor.example/mcp' },
    });
    const { servers, problems, byName } = await load({
      workflowServers: {
        file: path.join(root, 'flows', 'review.toml'),
        servers: { shared: { command: ['wf-server'], env: { FROM: 'workflow' } } },
      },
      projectSettings: projectSettings({
        shared: { url: 'https://project.example/mcp' },
        proj: { command: ['from-settings'], tool_timeout: '5s' },
      }),
      userSettings: userSettings({
        shared: { command: ['user-server'], tool_timeout: '1s', sampling: true },
        proj: { command: ['user-proj'], required: true },
        json: { command: ['user-json'], startup_timeout: '2s' },
        cursor: { command: ['user-cursor'] },
        user: { command: ['user-only'] },
      }),
    });
    expect(problems).toEqual([]);
    expect(servers.map((server) => server.name)).toEqual(['cursor', 'json', 'proj', 'shared', 'user']);

    const shared = byName('shared')!;
    expect(shared.command).toEqual(['wf-server']);
    expect(shared.env).toEqual({ FROM: 'workflow' });
    expect(shared.toolTimeoutMs).toBe(60_000);
    expect(shared.sampling).toBe(false);
    expect(shared.url).toBeUndefined();
    expect(shared.source).toEqual({ kind: 'workflow', file: path.join(root, 'flows', 'review.toml') });

    const proj = byName('proj')!;
    expect(proj.command).toEqual(['from-settings']);
    expect(proj.toolTimeoutMs).toBe(5000);
    expect(proj.required).toBe(false);
    expect(proj.source).toEqual({ kind: 'project-settings', file: path.join(root, '.weft', 'settings.toml') });

    const json = byName('json')!;
    expect(json.command).toEqual(['json-wins', 'a']);
    expect(json.env).toEqual({});
    expect(json.startupTimeoutMs).toBe(10_000);
    expect(json.source).toEqual({ kind: 'project-mcp-json', file: path.join(root, '.mcp.json') });

    const cursor = byName('cursor')!;
    expect(cursor.type).toBe('http');
    expect(cursor.command).toBeUndefined();
    expect(cursor.source).toEqual({ kind: 'cursor-mcp-json', file: path.join(root, '.cursor', 'mcp.json') });

    expect(byName('user')!.source).toEqual({ kind: 'user-settings', file: path.join(home, '.weft', 'settings.toml') });
  });

  it('does not fall back to a lower source when the winning entry is invalid', async () => {
    await writeMcpJson('.mcp.json', { gh: { type: 'http' } });
    const { servers, problems } = await load({ userSettings: userSettings({ gh: { url: 'https://user.example/mcp' } }) });
    expect(servers).toEqual([]);
    expect(problems.map((problem) => problem.message)).toEqual([
      `.mcp.json: server 'gh': field 'url' is required for type "http" — add "url": "https://…"`,
    ]);
  });

  it('lets a disabled entry shadow a lower source and keeps it with enabled: false', async () => {
    const { servers } = await load({
      projectSettings: projectSettings({ gh: { url: 'https://project.example/mcp', enabled: false } }),
      userSettings: userSettings({ gh: { command: ['gh-server'] } }),
    });
    expect(servers).toHaveLength(1);
    expect(servers[0]).toMatchObject({ name: 'gh', type: 'http', enabled: false, url: 'https://project.example/mcp' });
  });
});

describe('defaults and shapes', () => {
  it('fills every default for a minimal stdio entry', async () => {
    const { servers } = await load({ userSettings: userSettings({ fs: { command: ['node', 'server.js'] } }) });
    const expected: McpServerConfig = {
      name: 'fs',
      type: 'stdio',
      command: ['node', 'server.js'],
      cwd: root,
      env: {},
      envVars: [],
      headers: {},
      protocol: 'streamable_http',
      startupTimeoutMs: 10_000,
      toolTimeoutMs: 60_000,
      maxToolTimeoutMs: 600_000,
      enabled: true,
      required: false,
      disabledTools: [],
      sampling: false,
      source: { kind: 'user-settings', file: path.join(home, '.weft', 'settings.toml') },
    };
    expect(servers).toEqual([expected]);
  });

  it('reads every TOML field', async () => {
    const { servers, problems } = await load({
      projectSettings: projectSettings({
        full: {
          type: 'stdio',
          command: 'python',
          args: ['-m', 'server'],
          cwd: 'tools/server',
          env: { MODE: 'test' },
          env_vars: ['GITHUB_TOKEN'],
          startup_timeout: '500ms',
          tool_timeout: '2m',
          max_tool_timeout: '1h',
          required: true,
          enabled_tools: ['search', 'fetch'],
          disabled_tools: ['fetch'],
          sampling: true,
        },
        box: { type: 'sandbox', script: 'node server.js --port 8080', port: 8080, protocol: 'sse', env: { A: 'b' } },
        remote: { type: 'sse', url: 'https://example.com/sse', headers: { 'X-Team': 'core' }, bearer_token_env_var: 'REMOTE_TOKEN' },
      }),
      env: { REMOTE_TOKEN: 'secret-value' },
    });
    expect(problems).toEqual([]);
    const [box, full, remote] = servers;
    expect(full).toMatchObject({
      command: ['python', '-m', 'server'],
      cwd: path.join(root, 'tools', 'server'),
      env: { MODE: 'test' },
      envVars: ['GITHUB_TOKEN'],
      startupTimeoutMs: 500,
      toolTimeoutMs: 120_000,
      maxToolTimeoutMs: 3_600_000,
      required: true,
      enabledTools: ['search', 'fetch'],
      disabledTools: ['fetch'],
      sampling: true,
    });
    expect(box).toMatchObject({ type: 'sandbox', script: 'node server.js --port 8080', port: 8080, protocol: 'sse', env: { A: 'b' } });
    expect(box!.cwd).toBeUndefined();
    expect(remote).toMatchObject({
      type: 'sse',
      url: 'https://example.com/sse',
      headers: { 'X-Team': 'core' },
      bearerTokenEnvVar: 'REMOTE_TOKEN',
    });
  });

  it('accepts serverUrl, type "streamable-http" and "disabled" from .mcp.json', async () => {
    await writeMcpJson('.mcp.json', {
      windsurf: { serverUrl: 'https://windsurf.example/mcp' },
      streamable: { type: 'streamable-http', url: 'https://stream.example/mcp' },
      off: { command: 'npx', disabled: true },
    });
    const { servers, problems } = await load();
    expect(problems).toEqual([]);
    expect(servers.map(({ name, type, url, enabled }) => ({ name, type, url, enabled }))).toEqual([
      { name: 'off', type: 'stdio', url: undefined, enabled: false },
      { name: 'streamable', type: 'http', url: 'https://stream.example/mcp', enabled: true },
      { name: 'windsurf', type: 'http', url: 'https://windsurf.example/mcp', enabled: true },
    ]);
  });

  it('resolves a relative cwd against the workspace and ~ against the home directory', async () => {
    const { byName } = await load({
      userSettings: userSettings({
        rel: { command: ['a'], cwd: '../other' },
        tilde: { command: ['a'], cwd: '~/servers/x' },
        abs: { command: ['a'], cwd: '/opt/srv' },
      }),
    });
    expect(byName('rel')!.cwd).toBe(path.join(base, 'other'));
    expect(byName('tilde')!.cwd).toBe(path.join(home, 'servers', 'x'));
    expect(byName('abs')!.cwd).toBe('/opt/srv');
  });

  it('treats absent and empty files as no servers', async () => {
    await writeFile(path.join(root, '.mcp.json'), '\n');
    const { servers, problems } = await load({ userSettings: { file: path.join(home, '.weft', 'settings.toml'), data: { model: 'x' } } });
    expect(servers).toEqual([]);
    expect(problems).toEqual([]);
  });
});

describe('resolveServerConfig (runtime registration)', () => {
  it('applies the same validation, defaults and interpolation to a single entry', () => {
    const common = {
      source: { kind: 'runtime' as const, file: 'POST /api/v1/mcp/servers' },
      format: 'json' as const,
      workspaceRoot: '/ws',
      homeDir: '/home/me',
      env: { TOKEN: 't' },
      logger: createLogger(() => {}),
    };
    const ok = resolveServerConfig({
      ...common,
      name: 'api',
      entry: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
    });
    expect(ok.problems).toEqual([]);
    expect(ok.config).toMatchObject({ name: 'api', type: 'http', headers: { Authorization: 'Bearer t' }, source: common.source });
    const bad = resolveServerConfig({ ...common, name: 'api', entry: { type: 'sse' } });
    expect(bad.config).toBeUndefined();
    expect(bad.problems.map((problem) => problem.message)).toEqual([
      `POST /api/v1/mcp/servers: server 'api': field 'url' is required for type "sse" — add "url": "https://…"`,
    ]);
  });
});
