// `weft mcp add/remove` on .mcp.json: only the one member changes; every other byte stays.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { addServerToProjectMcpJson, removeServerFromProjectMcpJson } from './edit-mcp-json.js';

let root: string;
let file: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'weft-mcp-json-edit-'));
  file = path.join(root, '.mcp.json');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const read = () => readFile(file, 'utf8');

/** A hand-written file: 4-space indent, inline arrays, another top-level key, trailing newline. */
const HAND_WRITTEN = `{
    "$schema": "https://example.com/mcp.schema.json",
    "mcpServers": {
        "filesystem": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] },
        "github": {
            "type": "http",
            "url": "https://api.githubcopilot.com/mcp/",
            "headers": { "Authorization": "Bearer \${GITHUB_TOKEN}" }
        }
    },
    "other": [1, 2,   3]
}
`;

async function expectConfigError(promise: Promise<unknown>, message: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(WeftError.is(error, 'CONFIG_INVALID')).toBe(true);
  expect((error as WeftError).message).toBe(message);
}

describe('addServerToProjectMcpJson', () => {
  it('creates .mcp.json when absent', async () => {
    const result = await addServerToProjectMcpJson(root, 'memory', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] });
    expect(result).toEqual({ file, replaced: false, warnings: [] });
    expect(await read()).toBe(`{
  "mcpServers": {
    "memory": {
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-memory"
      ]
    }
  }
}
`);
  });

  it('appends to an existing file with its indentation, keeping everything else byte for byte', async () => {
    await writeFile(file, HAND_WRITTEN);
    await addServerToProjectMcpJson(root, 'remote', { type: 'http', url: 'https://example.com/mcp' });
    expect(await read()).toBe(`{
    "$schema": "https://example.com/mcp.schema.json",
    "mcpServers": {
        "filesystem": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] },
        "github": {
            "type": "http",
            "url": "https://api.githubcopilot.com/mcp/",
            "headers": { "Authorization": "Bearer \${GITHUB_TOKEN}" }
        },
        "remote": {
            "type": "http",
            "url": "https://example.com/mcp"
        }
    },
    "other": [1, 2,   3]
}
`);
  });

  it('keeps tab indentation and a missing trailing newline', async () => {
    await writeFile(file, '{\n\t"mcpServers": {\n\t\t"a": {\n\t\t\t"command": "a"\n\t\t}\n\t}\n}');
    await addServerToProjectMcpJson(root, 'b', { command: 'b' });
    expect(await read()).toBe(
      '{\n\t"mcpServers": {\n\t\t"a": {\n\t\t\t"command": "a"\n\t\t},\n\t\t"b": {\n\t\t\t"command": "b"\n\t\t}\n\t}\n}',
    );
  });

  it('adds mcpServers to a file that has other keys only, and fills an empty mcpServers', async () => {
    await writeFile(file, '{\n  "note": "keep"\n}\n');
    await addServerToProjectMcpJson(root, 'a', { command: 'a' });
    expect(await read()).toBe('{\n  "note": "keep",\n  "mcpServers": {\n    "a": {\n      "command": "a"\n    }\n  }\n}\n');

    await writeFile(file, '{\n  "mcpServers": {},\n  "note": "keep"\n}\n');
    await addServerToProjectMcpJson(root, 'a', { command: 'a' });
    expect(await read()).toBe('{\n  "mcpServers": {\n    "a": {\n      "command": "a"\n    }\n  },\n  "note": "keep"\n}\n');
  });

  it('refuses an existing name unless replace is set, then replaces it in place', async () => {
    await writeFile(file, HAND_WRITTEN);
    await expectConfigError(
      addServerToProjectMcpJson(root, 'filesystem', { command: 'other' }),
      ".mcp.json: server 'filesystem' already exists — choose another name, or remove it first with `weft mcp remove filesystem`",
    );
    expect(await read()).toBe(HAND_WRITTEN);
    const result = await addServerToProjectMcpJson(root, 'filesystem', { command: 'fs-server' }, { replace: true });
    expect(result.replaced).toBe(true);
    expect(await read()).toBe(
      HAND_WRITTEN.replace(
        '{ "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] }',
        '{\n            "command": "fs-server"\n        }',
      ),
    );
  });

  it('validates the entry and the name before writing anything', async () => {
    await expectConfigError(
      addServerToProjectMcpJson(root, 'gh', { type: 'http', headers: {} }),
      `.mcp.json: server 'gh': field 'url' is required for type "http" — add "url": "https://…"`,
    );
    await expectConfigError(
      addServerToProjectMcpJson(root, 'my.server', { command: 'x' }),
      ".mcp.json: server 'my.server': invalid name — use only letters, digits, '_' and '-', e.g. 'my_server'",
    );
    await expect(stat(file)).rejects.toThrow(/ENOENT/);
  });

  it('returns warnings for fields weft ignores, and writes the entry as given', async () => {
    const result = await addServerToProjectMcpJson(root, 'cline', { command: 'x', alwaysAllow: ['read'] });
    expect(result.warnings.map((warning) => warning.message)).toEqual([
      ".mcp.json: server 'cline': field 'alwaysAllow' is not used by weft and was ignored — remove it if it is a misspelling",
    ]);
    expect(JSON.parse(await read())).toEqual({ mcpServers: { cline: { command: 'x', alwaysAllow: ['read'] } } });
  });

  it('refuses to edit a file that is not valid JSON', async () => {
    await writeFile(file, '{ "mcpServers": { ');
    await expectConfigError(
      addServerToProjectMcpJson(root, 'a', { command: 'a' }),
      `.mcp.json: is not valid JSON (line 1, column 19: Expected property name or '}') — fix it before adding a server; nothing was written`,
    );
    expect(await read()).toBe('{ "mcpServers": { ');
  });
});

describe('removeServerFromProjectMcpJson', () => {
  it('removes a middle, last or only server and keeps the rest byte for byte', async () => {
    await writeFile(file, HAND_WRITTEN);
    await addServerToProjectMcpJson(root, 'remote', { url: 'https://example.com/mcp' });

    expect(await removeServerFromProjectMcpJson(root, 'github')).toEqual({ file, removed: true });
    expect(await read()).toBe(`{
    "$schema": "https://example.com/mcp.schema.json",
    "mcpServers": {
        "filesystem": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] },
        "remote": {
            "url": "https://example.com/mcp"
        }
    },
    "other": [1, 2,   3]
}
`);
    await removeServerFromProjectMcpJson(root, 'remote');
    expect(await read()).toBe(`{
    "$schema": "https://example.com/mcp.schema.json",
    "mcpServers": {
        "filesystem": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] }
    },
    "other": [1, 2,   3]
}
`);
    await removeServerFromProjectMcpJson(root, 'filesystem');
    expect(await read()).toBe(`{
    "$schema": "https://example.com/mcp.schema.json",
    "mcpServers": {},
    "other": [1, 2,   3]
}
`);
  });

  it('undoes an add exactly', async () => {
    await writeFile(file, HAND_WRITTEN);
    await addServerToProjectMcpJson(root, 'remote', { url: 'https://example.com/mcp', headers: { 'X-A': 'b' } });
    await removeServerFromProjectMcpJson(root, 'remote');
    expect(await read()).toBe(HAND_WRITTEN);
  });

  it('reports a name that is not there, and a missing file, without writing', async () => {
    expect(await removeServerFromProjectMcpJson(root, 'nope')).toEqual({ file, removed: false });
    await expect(stat(file)).rejects.toThrow(/ENOENT/);
    await writeFile(file, HAND_WRITTEN);
    expect(await removeServerFromProjectMcpJson(root, 'nope')).toEqual({ file, removed: false });
    expect(await read()).toBe(HAND_WRITTEN);
  });
});
