// Config errors: each kind names the file, server and field with a fix, and never stops the other servers.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.js';
import { loadMcpServerConfigs } from './load-configs.js';

let base: string;
let root: string;
let home: string;
let userFile: string;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'weft-mcp-validate-'));
  root = path.join(base, 'ws');
  home = path.join(base, 'home');
  userFile = path.join(home, '.weft', 'settings.toml');
  await mkdir(path.join(root, '.cursor'), { recursive: true });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const GOOD = { command: 'npx', args: ['-y', 'good-server'] };

/** Loads `.mcp.json` holding `servers` plus a valid `good` server; returns names loaded and messages. */
async function loadJson(servers: Record<string, unknown>) {
  await writeFile(path.join(root, '.mcp.json'), JSON.stringify({ mcpServers: { ...servers, good: GOOD } }));
  const result = await loadMcpServerConfigs({ workspaceRoot: root, homeDir: home, env: {}, logger: silentLogger });
  return {
    names: result.servers.map((server) => server.name),
    messages: result.problems.map((problem) => problem.message),
    problems: result.problems,
  };
}

/** Same, from user settings TOML data. */
async function loadToml(servers: Record<string, unknown>) {
  const result = await loadMcpServerConfigs({
    workspaceRoot: root,
    homeDir: home,
    env: {},
    logger: silentLogger,
    userSettings: { file: userFile, data: { mcp: { servers: { ...servers, good: { command: ['good-server'] } } } } },
  });
  return {
    names: result.servers.map((server) => server.name),
    messages: result.problems.map((problem) => problem.message),
    problems: result.problems,
  };
}

describe('file-level problems', () => {
  it('reports a non-JSON file with line and column, skips its servers and loads the other files', async () => {
    await writeFile(path.join(root, '.mcp.json'), '{\n  "mcpServers": {\n    "a": { "command": "x" },\n  }\n}\n');
    await writeFile(path.join(root, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { cur: GOOD } }));
    const result = await loadMcpServerConfigs({
      workspaceRoot: root,
      homeDir: home,
      env: {},
      logger: silentLogger,
      userSettings: { file: userFile, data: { mcp: { servers: { usr: { command: ['u'] } } } } },
    });
    expect(result.servers.map((server) => server.name)).toEqual(['cur', 'usr']);
    expect(result.problems).toEqual([
      {
        file: path.join(root, '.mcp.json'),
        message:
          '.mcp.json: is not valid JSON (line 4, column 3: Expected double-quoted property name) — fix the syntax; its servers were skipped',
        severity: 'error',
      },
    ]);
  });

  it('reports mcpServers that is not an object', async () => {
    await writeFile(path.join(root, '.mcp.json'), '{"mcpServers": ["a"]}');
    const result = await loadMcpServerConfigs({ workspaceRoot: root, homeDir: home, env: {}, logger: silentLogger });
    expect(result.problems.map((problem) => problem.message)).toEqual([
      `.mcp.json: field 'mcpServers' must be an object of servers — write "mcpServers": {"name": {…}}; its servers were skipped`,
    ]);
  });

  it('reports an mcp key in settings that is not a table', async () => {
    const result = await loadMcpServerConfigs({
      workspaceRoot: root,
      homeDir: home,
      env: {},
      logger: silentLogger,
      userSettings: { file: userFile, data: { mcp: 'github' } },
    });
    expect(result.problems.map((problem) => problem.message)).toEqual([
      `~/.weft/settings.toml: 'mcp' must be a table — define servers as tables, e.g. [mcp.servers.github] with command = ["npx", "-y", "some-mcp-server"]`,
    ]);
  });
});

describe('entry problems (the bad entry is skipped, the others load)', () => {
  it('missing command', async () => {
    const { names, problems } = await loadJson({ broken: { args: ['x'] } });
    expect(names).toEqual(['good']);
    expect(problems).toEqual([
      {
        file: path.join(root, '.mcp.json'),
        server: 'broken',
        field: 'command',
        message: `.mcp.json: server 'broken': field 'command' is required for type "stdio" — add "command": "…" (with "args": […]) or "script": "…"`,
        severity: 'error',
      },
    ]);
  });

  it('http without url', async () => {
    const { names, messages } = await loadJson({ github: { type: 'http', headers: { Authorization: 'Bearer x' } } });
    expect(names).toEqual(['good']);
    expect(messages).toEqual([`.mcp.json: server 'github': field 'url' is required for type "http" — add "url": "https://…"`]);
  });

  it('sse without url, in TOML syntax', async () => {
    const { names, messages } = await loadToml({ events: { type: 'sse' } });
    expect(names).toEqual(['good']);
    expect(messages).toEqual([`~/.weft/settings.toml: server 'events': field 'url' is required for type "sse" — add url = "https://…"`]);
  });

  it('invalid name', async () => {
    const { names, problems } = await loadJson({ 'my server!': GOOD });
    expect(names).toEqual(['good']);
    expect(problems).toEqual([
      {
        file: path.join(root, '.mcp.json'),
        server: 'my server!',
        message: `.mcp.json: server 'my server!': invalid name — use only letters, digits, '_' and '-', e.g. 'my_server'`,
        severity: 'error',
      },
    ]);
  });

  it('wrong types', async () => {
    const { names, messages } = await loadJson({
      a: { command: 'npx', args: '-y server' },
      b: { command: 'npx', env: { PORT: 3000 } },
      c: 'npx server',
    });
    expect(names).toEqual(['good']);
    expect(messages).toEqual([
      `.mcp.json: server 'a': field 'args' must be an array of strings, not a string ("-y server") — e.g. "args": ["-y", "some-mcp-server"]`,
      `.mcp.json: server 'b': field 'env.PORT' must be a string, not a number (3000) — quote it: "PORT": "3000"`,
      `.mcp.json: server 'c': the entry must be an object, not a string ("npx server") — e.g. "c": { "command": "npx", "args": ["-y", "some-mcp-server"] }`,
    ]);
  });

  it('wrong types in TOML', async () => {
    const { names, messages } = await loadToml({
      a: { command: ['x'], enabled: 'false' },
      b: { command: ['x', 3] },
      c: { command: ['x'], enabled_tools: 'search' },
    });
    expect(names).toEqual(['good']);
    expect(messages).toEqual([
      `~/.weft/settings.toml: server 'a': field 'enabled' must be true or false, not a string ("false") — e.g. enabled = false`,
      `~/.weft/settings.toml: server 'b': field 'command[1]' must be a string, not a number (3) — quote it: "3"`,
      `~/.weft/settings.toml: server 'c': field 'enabled_tools' must be an array of tool names, not a string ("search") — e.g. enabled_tools = ["search", "fetch"]`,
    ]);
  });

  it('unknown field: an error in TOML, a warning (entry kept) in .mcp.json', async () => {
    const toml = await loadToml({ typo: { command: ['x'], tool_timout: '5s' }, odd: { command: ['x'], colour: 'red' } });
    expect(toml.names).toEqual(['good']);
    expect(toml.messages).toEqual([
      `~/.weft/settings.toml: server 'typo': field 'tool_timout' is not a known field — did you mean 'tool_timeout'?`,
      `~/.weft/settings.toml: server 'odd': field 'colour' is not a known field — remove it (known fields: type, command, args, script, cwd, env, env_vars, url, headers, bearer_token_env_var, oauth, port, protocol, startup_timeout, tool_timeout, max_tool_timeout, enabled, required, enabled_tools, disabled_tools, sampling)`,
    ]);
    const json = await loadJson({ cline: { command: 'npx', alwaysAllow: ['read'] } });
    expect(json.names).toEqual(['cline', 'good']);
    expect(json.problems).toEqual([
      {
        file: path.join(root, '.mcp.json'),
        server: 'cline',
        field: 'alwaysAllow',
        message: `.mcp.json: server 'cline': field 'alwaysAllow' is not used by weft and was ignored — remove it if it is a misspelling`,
        severity: 'warning',
      },
    ]);
  });

  it('bad durations', async () => {
    const { names, messages } = await loadToml({
      slow: { command: ['x'], startup_timeout: '10 parsecs' },
      zero: { command: ['x'], tool_timeout: '0s' },
      short: { command: ['x'], tool_timeout: '30s', max_tool_timeout: '10s' },
    });
    expect(names).toEqual(['good']);
    expect(messages).toEqual([
      `~/.weft/settings.toml: server 'slow': field 'startup_timeout' is not a duration: "10 parsecs" — use a number with a unit ("500ms", "10s", "2m", "1h"), e.g. startup_timeout = "10s"`,
      `~/.weft/settings.toml: server 'zero': field 'tool_timeout' must be greater than zero — e.g. tool_timeout = "60s"`,
      `~/.weft/settings.toml: server 'short': field 'max_tool_timeout' (10s) is shorter than tool_timeout (30s) — raise it, or remove it to use the default of 10 × tool_timeout`,
    ]);
  });

  it('bad URLs, before and after interpolation', async () => {
    const { names, messages } = await loadJson({
      a: { url: 'not a url' },
      b: { type: 'http', url: 'ftp://example.com/mcp' },
      c: { url: '${MCP_HOST:-nope}/mcp' },
    });
    expect(names).toEqual(['good']);
    expect(messages).toEqual([
      `.mcp.json: server 'a': field 'url' is not a valid http(s) URL: "not a url" — use an absolute URL such as "https://example.com/mcp"`,
      `.mcp.json: server 'b': field 'url' is not a valid http(s) URL: "ftp://example.com/mcp" — use an absolute URL such as "https://example.com/mcp"`,
      `.mcp.json: server 'c': field 'url' is not a valid http(s) URL after interpolation: "\${MCP_HOST:-nope}/mcp" — use an absolute URL such as "https://example.com/mcp"`,
    ]);
  });

  it('transport rules: command with script, sandbox without port, unknown type, fields of another transport', async () => {
    const { names, messages } = await loadToml({
      both: { command: ['x'], script: 'run.sh' },
      box: { type: 'sandbox', command: ['x'] },
      ws: { type: 'websocket', url: 'wss://x' },
      mixed: { command: ['x'], headers: { A: 'b' } },
      ambiguous: { command: ['x'], url: 'https://example.com/mcp' },
    });
    expect(names).toEqual(['good']);
    expect(messages).toEqual([
      `~/.weft/settings.toml: server 'both': field 'script' cannot be used together with 'command' — keep only one of them`,
      `~/.weft/settings.toml: server 'box': field 'port' is required for type "sandbox" — add port = 3000 (the port the server listens on)`,
      `~/.weft/settings.toml: server 'ws': field 'type' is "websocket", which is not a transport — use "stdio", "http" (or "streamable-http"), "sse" or "sandbox"`,
      `~/.weft/settings.toml: server 'mixed': field 'headers' does not apply to type "stdio" — remove it, or set type = "http"`,
      `~/.weft/settings.toml: server 'ambiguous': field 'url' cannot be combined with 'command' when 'type' is not set — remove one of them, or say which transport to use with type = "stdio" or type = "http"`,
    ]);
  });

  it('ignores, with a warning, .mcp.json fields of another transport', async () => {
    const { names, problems } = await loadJson({ remote: { type: 'http', url: 'https://example.com/mcp', env: { A: 'b' } } });
    expect(names).toEqual(['good', 'remote']);
    expect(problems.map((problem) => [problem.severity, problem.message])).toEqual([
      [
        'warning',
        `.mcp.json: server 'remote': field 'env' does not apply to type "http" and was ignored — remove it, or set "type": "stdio"`,
      ],
    ]);
  });

  it('reports problems in an overridden entry too, without affecting the winner', async () => {
    await writeFile(path.join(root, '.mcp.json'), JSON.stringify({ mcpServers: { gh: { url: 'https://example.com/mcp' } } }));
    const result = await loadMcpServerConfigs({
      workspaceRoot: root,
      homeDir: home,
      env: {},
      logger: silentLogger,
      userSettings: { file: userFile, data: { mcp: { servers: { gh: { type: 'http' } } } } },
    });
    expect(result.servers.map((server) => [server.name, server.source.kind])).toEqual([['gh', 'project-mcp-json']]);
    expect(result.problems.map((problem) => problem.message)).toEqual([
      `~/.weft/settings.toml: server 'gh': field 'url' is required for type "http" — add url = "https://…"`,
    ]);
  });
});
