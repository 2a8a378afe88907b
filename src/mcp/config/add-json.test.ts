// `weft mcp add-json`: Claude Code's entry shape, validated like .mcp.json, and convertible to settings TOML.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { silentLogger } from '../../core/logger.js';
import { mcpJsonEntryToToml, parseMcpAddJson } from './add-json.js';
import { addServerToUserSettings } from './edit-user-settings.js';
import { loadMcpServerConfigs } from './load-configs.js';

function errorOf(run: () => unknown): WeftError {
  try {
    run();
  } catch (error) {
    if (WeftError.is(error, 'CONFIG_INVALID')) return error;
    throw error;
  }
  throw new Error('expected a CONFIG_INVALID error');
}

describe('parseMcpAddJson', () => {
  it('accepts the Claude Code shapes', () => {
    expect(
      parseMcpAddJson('fs', '{"type":"stdio","command":"npx","args":["-y","@modelcontextprotocol/server-filesystem"],"env":{"A":"b"}}'),
    ).toEqual({
      entry: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem'], env: { A: 'b' } },
      warnings: [],
    });
    expect(
      parseMcpAddJson(
        'gh',
        '{"type":"http","url":"https://api.githubcopilot.com/mcp/","headers":{"Authorization":"Bearer ${GITHUB_TOKEN}"}}',
      ).entry,
    ).toEqual({
      type: 'http',
      url: 'https://api.githubcopilot.com/mcp/',
      headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' },
    });
  });

  it('reports syntax errors, with the position when the parser gives one', () => {
    expect(errorOf(() => parseMcpAddJson('a', '[1')).message).toBe(
      `mcp add-json: the server JSON is not valid (line 1, column 3: Expected ',' or ']' after array element) — pass one object, e.g. '{"command": "npx", "args": ["-y", "some-mcp-server"]}'`,
    );
    expect(errorOf(() => parseMcpAddJson('a', '"npx"')).message).toBe(
      `mcp add-json: the server JSON must be an object — e.g. '{"type": "http", "url": "https://example.com/mcp"}'`,
    );
  });

  it('applies the .mcp.json validation', () => {
    const error = errorOf(() => parseMcpAddJson('gh', '{"type": "http", "startup_timeout": "soon"}'));
    expect(error.message).toBe(
      [
        `mcp add-json: server 'gh': field 'url' is required for type "http" — add "url": "https://…"`,
        `mcp add-json: server 'gh': field 'startup_timeout' is not a duration: "soon" — use a number with a unit ("500ms", "10s", "2m", "1h"), e.g. "startup_timeout": "10s"`,
      ].join('\n'),
    );
    expect(error.data.problems).toHaveLength(2);
    expect(errorOf(() => parseMcpAddJson('a/b', '{"command": "x"}')).message).toBe(
      `mcp add-json: server 'a/b': invalid name — use only letters, digits, '_' and '-', e.g. 'a_b'`,
    );
  });
});

describe('mcpJsonEntryToToml', () => {
  it("maps aliases to weft's names and drops what TOML would reject", () => {
    expect(
      mcpJsonEntryToToml({
        serverUrl: 'https://x.example/mcp',
        disabled: true,
        disabledTools: ['rm'],
        env: { A: 'b' },
        alwaysAllow: ['x'],
      }),
    ).toEqual({
      url: 'https://x.example/mcp',
      enabled: false,
      disabled_tools: ['rm'],
    });
    expect(mcpJsonEntryToToml({ args: ['-y'], command: 'npx', type: 'stdio' })).toEqual({ type: 'stdio', command: 'npx', args: ['-y'] });
  });

  describe('round trip through user settings', () => {
    let base: string;
    beforeEach(async () => {
      base = await mkdtemp(path.join(tmpdir(), 'weft-mcp-add-json-'));
      await mkdir(path.join(base, 'ws'), { recursive: true });
    });
    afterEach(async () => {
      await rm(base, { recursive: true, force: true });
    });

    it('loads the same server from .mcp.json and from the converted TOML', async () => {
      const json = '{"command":"npx","args":["-y","srv"],"env":{"K":"v"},"disabledTools":["rm"],"tool_timeout":"5s"}';
      const { entry } = parseMcpAddJson('srv', json);
      const root = path.join(base, 'ws');
      const settingsFile = path.join(base, 'settings.toml');
      await addServerToUserSettings(settingsFile, 'srv', mcpJsonEntryToToml(entry));
      await writeFile(path.join(root, '.mcp.json'), JSON.stringify({ mcpServers: { srv: entry } }));

      const fromJson = await loadMcpServerConfigs({ workspaceRoot: root, homeDir: base, env: {}, logger: silentLogger });
      const data = parse(await readFile(settingsFile, 'utf8')) as Record<string, unknown>;
      const fromToml = await loadMcpServerConfigs({
        workspaceRoot: path.join(base, 'empty'),
        homeDir: base,
        env: {},
        logger: silentLogger,
        userSettings: { file: settingsFile, data },
      });
      expect(fromToml.problems).toEqual([]);
      const { source: _jsonSource, ...jsonConfig } = fromJson.servers[0]!;
      const { source: _tomlSource, ...tomlConfig } = fromToml.servers[0]!;
      expect({ ...tomlConfig, cwd: root }).toEqual(jsonConfig);
      expect(jsonConfig).toMatchObject({ command: ['npx', '-y', 'srv'], env: { K: 'v' }, disabledTools: ['rm'], toolTimeoutMs: 5000 });
    });
  });
});
