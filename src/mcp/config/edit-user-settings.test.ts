// `weft mcp add/remove --scope user` on settings TOML: one table appended or removed, the rest byte for byte.
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { addServerToUserSettings, removeServerFromUserSettings } from './edit-user-settings.js';

let home: string;
let file: string;

beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'weft-mcp-toml-edit-'));
  file = path.join(home, '.weft', 'settings.toml');
  await mkdir(path.dirname(file), { recursive: true });
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const read = () => readFile(file, 'utf8');

const SETTINGS = `# weft user settings
model = "anthropic/claude-sonnet"   # default model

[approval]
rules = [
  { pattern = "mcp__github__*", action = "allow" },
]

[matrix]
values = [
  ["a", "b"],
  [ "c" ],
]

# MCP servers
[mcp.servers.github]
url = "https://api.githubcopilot.com/mcp/"   # remote
bearer_token_env_var = "GITHUB_TOKEN"

[mcp.servers.github.headers]
X-Team = "core"

# The memory server keeps notes.
[mcp.servers.memory]
command = ["npx", "-y", "@modelcontextprotocol/server-memory"]

[prompts]
system = """
[mcp.servers.memory.env]
not a table, just text
"""

[ui]
theme = "dark"
`;

async function expectConfigError(promise: Promise<unknown>, message: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(WeftError.is(error, 'CONFIG_INVALID')).toBe(true);
  expect((error as WeftError).message).toBe(message);
}

describe('addServerToUserSettings', () => {
  it('appends a [mcp.servers.<name>] table and keeps the rest of the file byte for byte', async () => {
    await writeFile(file, SETTINGS);
    const result = await addServerToUserSettings(
      file,
      'fs',
      { command: ['node', 'fs.js'], env: { ROOT: '${WORKDIR}' }, tool_timeout: '2m' },
      { homeDir: home },
    );
    expect(result).toEqual({ file, replaced: false, warnings: [] });
    expect(await read()).toBe(`${SETTINGS}
[mcp.servers.fs]
command = [ "node", "fs.js" ]
tool_timeout = "2m"

[mcp.servers.fs.env]
ROOT = "\${WORKDIR}"
`);
  });

  it('creates the file (mode 0600) when absent, and separates from text without a trailing newline', async () => {
    await addServerToUserSettings(file, 'a', { url: 'https://example.com/mcp' });
    expect(await read()).toBe('[mcp.servers.a]\nurl = "https://example.com/mcp"\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    await writeFile(file, 'model = "x"');
    await addServerToUserSettings(file, 'b', { command: ['b'] });
    expect(await read()).toBe('model = "x"\n\n[mcp.servers.b]\ncommand = [ "b" ]\n');
  });

  it('refuses an existing name unless replace is set; replace removes the old tables first', async () => {
    await writeFile(file, SETTINGS);
    await expectConfigError(
      addServerToUserSettings(file, 'github', { url: 'https://other.example/mcp' }, { homeDir: home }),
      "~/.weft/settings.toml: server 'github' already exists — choose another name, or remove it first with `weft mcp remove github`",
    );
    expect(await read()).toBe(SETTINGS);

    const result = await addServerToUserSettings(file, 'github', { url: 'https://other.example/mcp' }, { replace: true });
    expect(result.replaced).toBe(true);
    const text = await read();
    expect(text).toBe(
      SETTINGS.replace(
        '[mcp.servers.github]\nurl = "https://api.githubcopilot.com/mcp/"   # remote\nbearer_token_env_var = "GITHUB_TOKEN"\n\n[mcp.servers.github.headers]\nX-Team = "core"\n\n',
        '',
      ) + '\n[mcp.servers.github]\nurl = "https://other.example/mcp"\n',
    );
    expect((parse(text) as { mcp: { servers: Record<string, unknown> } }).mcp.servers.github).toEqual({ url: 'https://other.example/mcp' });
  });

  it('validates the name and the entry (TOML rules) before writing', async () => {
    await writeFile(file, SETTINGS);
    await expectConfigError(
      addServerToUserSettings(file, 'fs', { command: ['x'], comand: ['y'] }, { homeDir: home }),
      "~/.weft/settings.toml: server 'fs': field 'comand' is not a known field — did you mean 'command'?",
    );
    await expectConfigError(
      addServerToUserSettings(file, 'bad name', { command: ['x'] }, { homeDir: home }),
      "~/.weft/settings.toml: server 'bad name': invalid name — use only letters, digits, '_' and '-', e.g. 'bad_name'",
    );
    expect(await read()).toBe(SETTINGS);
  });

  it('refuses to append when mcp.servers is written inline, and leaves the file alone', async () => {
    const inline = '[mcp]\nservers = { a = { command = ["a"] } }\n';
    await writeFile(file, inline);
    await expectConfigError(
      addServerToUserSettings(file, 'b', { command: ['b'] }, { homeDir: home }),
      "~/.weft/settings.toml: cannot add server 'b' safely: mcp.servers is written inline or with dotted keys there — edit the file by hand, using a [mcp.servers.b] table; nothing was written",
    );
    expect(await read()).toBe(inline);
  });

  it('refuses a file that is not valid TOML', async () => {
    await writeFile(file, 'model = \n');
    await expectConfigError(
      addServerToUserSettings(file, 'b', { command: ['b'] }, { homeDir: home }),
      '~/.weft/settings.toml: is not valid TOML (line 1, column 9: invalid value) — fix it before adding a server; nothing was written',
    );
    expect(await read()).toBe('model = \n');
  });
});

describe('removeServerFromUserSettings', () => {
  it("removes exactly the server's tables (and sub-tables), keeping comments that belong to the next table", async () => {
    await writeFile(file, SETTINGS);
    expect(await removeServerFromUserSettings(file, 'github')).toEqual({ file, removed: true });
    expect(await read()).toBe(
      SETTINGS.replace(
        '[mcp.servers.github]\nurl = "https://api.githubcopilot.com/mcp/"   # remote\nbearer_token_env_var = "GITHUB_TOKEN"\n\n[mcp.servers.github.headers]\nX-Team = "core"\n\n',
        '',
      ),
    );
  });

  it('is not fooled by table-like lines inside strings or multi-line arrays', async () => {
    await writeFile(file, SETTINGS);
    await removeServerFromUserSettings(file, 'memory');
    expect(await read()).toBe(
      SETTINGS.replace('[mcp.servers.memory]\ncommand = ["npx", "-y", "@modelcontextprotocol/server-memory"]\n\n', ''),
    );
  });

  it('undoes an add exactly', async () => {
    await writeFile(file, SETTINGS);
    await addServerToUserSettings(file, 'fs', { command: ['node'], env: { A: 'b' } });
    await removeServerFromUserSettings(file, 'fs');
    expect(await read()).toBe(SETTINGS);
  });

  it('removes sub-tables that are elsewhere in the file and headers with quoted keys', async () => {
    const text = `[mcp.servers."quoted"]\ncommand = ["q"]\n\n[other]\nx = 1\n\n[ mcp . servers . 'quoted' . env ]  # env\nA = "b"\n\n[last]\ny = 2\n`;
    await writeFile(file, text);
    await removeServerFromUserSettings(file, 'quoted');
    expect(await read()).toBe('[other]\nx = 1\n\n[last]\ny = 2\n');
  });

  it('reports a name that is not there, and refuses a server written inline', async () => {
    await writeFile(file, SETTINGS);
    expect(await removeServerFromUserSettings(file, 'nope')).toEqual({ file, removed: false });
    expect(await read()).toBe(SETTINGS);
    expect(await removeServerFromUserSettings(path.join(home, 'missing.toml'), 'a')).toEqual({
      file: path.join(home, 'missing.toml'),
      removed: false,
    });

    const dotted = '[mcp.servers]\na.command = ["a"]\n';
    await writeFile(file, dotted);
    await expectConfigError(
      removeServerFromUserSettings(file, 'a', { homeDir: home }),
      "~/.weft/settings.toml: cannot remove server 'a' safely: mcp.servers is written inline or with dotted keys there — edit the file by hand, using a [mcp.servers.a] table; nothing was written",
    );
    expect(await read()).toBe(dotted);
  });
});
