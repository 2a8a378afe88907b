import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WeftError } from '../errors.js';
import { loadSettings } from './settings.js';

let storageDir: string;
let workspaceRoot: string;
let base: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'weft-settings-'));
  storageDir = join(base, 'home');
  workspaceRoot = join(base, 'project');
  await mkdir(storageDir, { recursive: true });
  await mkdir(join(workspaceRoot, '.weft'), { recursive: true });
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function failure(): Promise<WeftError> {
  try {
    await loadSettings({ storageDir, workspaceRoot });
  } catch (error) {
    if (error instanceof WeftError) return error;
    throw error;
  }
  throw new Error('expected loadSettings to fail');
}

describe('loadSettings', () => {
  it('uses defaults when no file exists', async () => {
    const settings = await loadSettings({ storageDir, workspaceRoot });
    expect({ ...settings, userDocument: undefined, projectDocument: undefined }).toEqual({
      shellTimeoutMs: 120_000,
      outputLimitBytes: 102_400,
      webFetchAllowHosts: [],
      approvalRules: [],
      logLevel: 'warn',
      llm: { aliases: {}, providers: {}, prices: {} },
      cli: {},
      workspace: {},
      runRetentionMs: undefined,
      sandbox: {},
      userDocument: undefined,
      projectDocument: undefined,
    });
  });

  it('reads [workspace]: the root only from the user file (a project cannot move where every run works), the author from either', async () => {
    await writeFile(join(storageDir, 'settings.toml'), '[workspace]\nroot = "/srv/weft-workspaces"\nauthor_name = "Ana"\n');
    await writeFile(join(workspaceRoot, '.weft/settings.toml'), '[workspace]\nroot = "/tmp/elsewhere"\nauthor_email = "ana@example.com"\n');
    const settings = await loadSettings({ storageDir, workspaceRoot });
    expect(settings.workspace).toEqual({ root: '/srv/weft-workspaces', authorName: 'Ana', authorEmail: 'ana@example.com' });
  });

  it('lets the project win key by key and appends project approval rules after user rules', async () => {
    await writeFile(
      join(storageDir, 'settings.toml'),
      'tools.shell_timeout = "30s"\ntools.output_limit_bytes = 4096\n[[approval.rules]]\npattern = "*"\naction = "ask"\n',
    );
    await writeFile(
      join(workspaceRoot, '.weft/settings.toml'),
      '[tools]\nshell_timeout = "3m"\n[[approval.rules]]\npattern = "shell"\naction = "allow"\n',
    );
    const settings = await loadSettings({ storageDir, workspaceRoot });
    expect(settings.shellTimeoutMs).toBe(180_000);
    expect(settings.outputLimitBytes).toBe(4096);
    expect(settings.approvalRules).toEqual([
      { pattern: '*', action: 'ask' },
      { pattern: 'shell', action: 'allow' },
    ]);
  });

  it('reports a TOML syntax error with file, line and column', async () => {
    const file = join(workspaceRoot, '.weft/settings.toml');
    await writeFile(file, 'a = 1\n[tools\n');
    const error = await failure();
    expect(error.code).toBe('SETTINGS_INVALID');
    expect(error.message).toBe(`${file}:2:7: TOML syntax error: illegal character in key. Fix the file or move it aside.`);
  });

  it('refuses unknown keys, naming the file, the key and the known keys', async () => {
    const file = join(storageDir, 'settings.toml');
    await writeFile(file, '[tools]\nshel_timeout = "5s"\n');
    expect((await failure()).message).toBe(
      `${file}: unknown key 'tools.shel_timeout' — did you mean 'shell_timeout'? (known keys in [tools]: shell_timeout, output_limit_bytes, web_fetch).`,
    );
  });

  it('reads [tools.web_fetch] allow_hosts, the project list replacing the user one, and refuses what is not a host', async () => {
    await writeFile(join(storageDir, 'settings.toml'), '[tools.web_fetch]\nallow_hosts = ["wiki.internal"]\n');
    expect((await loadSettings({ storageDir, workspaceRoot })).webFetchAllowHosts).toEqual(['wiki.internal']);
    const file = join(workspaceRoot, '.weft/settings.toml');
    await writeFile(file, '[tools.web_fetch]\nallow_hosts = ["127.0.0.1", "*.corp.example", "[::1]", "localhost"]\n');
    expect((await loadSettings({ storageDir, workspaceRoot })).webFetchAllowHosts).toEqual([
      '127.0.0.1',
      '*.corp.example',
      '[::1]',
      'localhost',
    ]);
    await writeFile(file, '[tools.web_fetch]\nallow_hosts = ["http://localhost:8080", 7]\nallowed_hosts = []\n');
    expect((await failure()).message).toBe(
      `${file}: key 'tools.web_fetch.allow_hosts[0]' must be a host name or IP address such as "wiki.internal", "*.corp.example" or "10.0.0.5" (no scheme, port or path), not a string ("http://localhost:8080"); ` +
        `key 'tools.web_fetch.allow_hosts[1]' must be a host name or IP address such as "wiki.internal", "*.corp.example" or "10.0.0.5" (no scheme, port or path), not a number (7); ` +
        `unknown key 'tools.web_fetch.allowed_hosts' — did you mean 'allow_hosts'? (known keys in [tools.web_fetch]: allow_hosts).`,
    );
  });

  it('refuses wrong types, naming the expected type', async () => {
    const file = join(workspaceRoot, '.weft/settings.toml');
    await writeFile(
      file,
      '[tools]\nshell_timeout = "soon"\noutput_limit_bytes = "big"\n[[approval.rules]]\npattern = "x"\naction = "maybe"\n',
    );
    expect((await failure()).message).toBe(
      `${file}: key 'tools.shell_timeout' must be a duration such as "500ms", "30s" or "2m", not a string ("soon"); ` +
        `key 'tools.output_limit_bytes' must be an integer ≥ 1024, not a string ("big"); ` +
        `key 'approval.rules[0].action' must be one of "allow", "deny", "ask", not a string ("maybe").`,
    );
  });

  it('reads [llm], merging aliases and providers by name with the project winning', async () => {
    await writeFile(
      join(storageDir, 'settings.toml'),
      '[llm]\nprovider = "anthropic"\nmodel = "claude-sonnet-4-5"\nmax_retries = 5\n[llm.aliases]\nfast = "anthropic:claude-haiku-4-5"\nsmart = "openai:gpt-5"\n[llm.providers.together]\napi = "openai-compatible"\nbase_url = "https://api.together.xyz/v1"\napi_key_env = "TOGETHER_API_KEY"\n[llm.prices."together:*"]\ninput_per_mtok = 1\noutput_per_mtok = 2\n[llm.prices."anthropic:claude-private"]\ninput_per_mtok = 9\noutput_per_mtok = 9\n',
    );
    await writeFile(
      join(workspaceRoot, '.weft/settings.toml'),
      '[llm]\nprovider = "ollama"\nmodel = "llama3.1:8b"\nstream = false\n[llm.aliases]\nsmart = "ollama:qwen3:32b"\n[llm.prices."anthropic:claude-private"]\ninput_per_mtok = 3\noutput_per_mtok = 15\ncache_read_per_mtok = 0.3\n',
    );
    const settings = await loadSettings({ storageDir, workspaceRoot });
    expect(settings.llm).toEqual({
      provider: 'ollama',
      model: 'llama3.1:8b',
      maxRetries: 5,
      stream: false,
      aliases: { fast: 'anthropic:claude-haiku-4-5', smart: 'ollama:qwen3:32b' },
      providers: { together: { api: 'openai-compatible', baseUrl: 'https://api.together.xyz/v1', apiKeyEnv: 'TOGETHER_API_KEY' } },
      prices: {
        'together:*': { inputPerMtok: 1, outputPerMtok: 2 },
        'anthropic:claude-private': { inputPerMtok: 3, outputPerMtok: 15, cacheReadPerMtok: 0.3 },
      },
    });
  });

  it('refuses a price that is not a number of dollars, naming the key', async () => {
    const file = join(storageDir, 'settings.toml');
    await writeFile(file, '[llm.prices."ollama:*"]\ninput_per_mtok = "free"\noutput_per_mtok = -1\n');
    expect((await failure()).message).toBe(
      `${file}: key 'llm.prices.ollama:*.input_per_mtok' must be a number ≥ 0, not a string ("free"); key 'llm.prices.ollama:*.output_per_mtok' must be a number ≥ 0, not a number (-1).`,
    );
  });

  it('reads [llm.limits] from both files, a project table replacing the user’s of the same pattern', async () => {
    await writeFile(
      join(storageDir, 'settings.toml'),
      '[llm.limits."anthropic:*"]\nconcurrent = 4\nrequests_per_minute = 50\ntokens_per_minute = 40000\n[llm.limits."openai:*"]\nconcurrent = 8\n',
    );
    await writeFile(join(workspaceRoot, '.weft/settings.toml'), '[llm.limits."anthropic:*"]\nconcurrent = 2\n');
    expect((await loadSettings({ storageDir, workspaceRoot })).llm.limits).toEqual({
      'anthropic:*': { concurrent: 2 },
      'openai:*': { concurrent: 8 },
    });
  });

  it('refuses an unknown [llm.limits] field, a limit that is not a whole number ≥ 1 and a bad pattern, naming the file, table and field', async () => {
    const file = join(storageDir, 'settings.toml');
    await writeFile(file, '[llm.limits."anthropic:*"]\nconcurent = 4\nrequests_per_minute = 0\ntokens_per_minute = 1.5\n');
    expect((await failure()).message).toBe(
      `${file}: unknown key 'llm.limits.anthropic:*.concurent' — did you mean 'concurrent'? (known keys in [llm.limits.anthropic:*]: concurrent, requests_per_minute, tokens_per_minute); ` +
        `key 'llm.limits.anthropic:*.requests_per_minute' must be an integer ≥ 1, not a number (0); ` +
        `key 'llm.limits.anthropic:*.tokens_per_minute' must be an integer ≥ 1, not a number (1.5).`,
    );
    await writeFile(file, '[llm.limits.anthropic]\nconcurrent = 4\n');
    expect((await failure()).message).toBe(
      `${file}: table [llm.limits."anthropic"]: the pattern must be a "provider:model" pattern such as "anthropic:*" or "openai:gpt-5*" (only * is a wildcard).`,
    );
  });

  it('refuses a non-string alias and unknown [llm] keys', async () => {
    const file = join(storageDir, 'settings.toml');
    await writeFile(file, '[llm]\nprovder = "x"\n[llm.aliases]\nfast = 3\n');
    expect((await failure()).message).toBe(
      `${file}: unknown key 'llm.provder' — did you mean 'provider'? (known keys in [llm]: backend, cli, provider, model, base_url, api_key_env, max_retries, stream, aliases, providers, prices, limits); key 'llm.aliases.fast' must be a string, not a number (3).`,
    );
  });

  it('reads [llm] backend and cli and [cli.<name>] path (the project entry over the user one), and suggests the name meant', async () => {
    await writeFile(
      join(storageDir, 'settings.toml'),
      '[llm]\nbackend = "cli"\ncli = "codex"\n[cli.claude]\npath = "/opt/claude/bin/claude"\n[cli.codex]\npath = "/usr/bin/codex"\n',
    );
    await writeFile(
      join(workspaceRoot, '.weft/settings.toml'),
      '[llm]\ncli = "claude"\n[cli.claude]\npath = "./node_modules/.bin/claude"\n',
    );
    const settings = await loadSettings({ storageDir, workspaceRoot });
    expect({ backend: settings.llm.backend, cli: settings.llm.cli, paths: settings.cli }).toEqual({
      backend: 'cli',
      cli: 'claude',
      paths: { claude: { path: './node_modules/.bin/claude' }, codex: { path: '/usr/bin/codex' } },
    });
    const file = join(workspaceRoot, '.weft/settings.toml');
    await writeFile(file, '[llm]\nbackend = "clli"\ncli = "claud"\n[cli.gemeni]\npath = "x"\n');
    expect((await failure()).message).toBe(
      `${file}: key 'llm.backend' must be one of "weft", "cli", not a string ("clli") — did you mean 'cli'?; ` +
        `key 'llm.cli' must be one of "claude", "codex", "gemini", not a string ("claud") — did you mean 'claude'?; ` +
        `unknown key 'cli.gemeni' — did you mean 'gemini'? (known keys in [cli]: claude, codex, gemini).`,
    );
  });

  it('leaves [mcp.servers] to the MCP layer but keeps the parsed document', async () => {
    await writeFile(join(storageDir, 'settings.toml'), '[mcp.servers.files]\ncommand = ["npx", "x"]\nwhatever = 1\n');
    const settings = await loadSettings({ storageDir, workspaceRoot });
    expect(settings.userDocument?.data).toEqual({ mcp: { servers: { files: { command: ['npx', 'x'], whatever: 1 } } } });
  });
});

describe('[store] url', () => {
  it('reads a PostgreSQL URL, the project file winning', async () => {
    await writeFile(join(storageDir, 'settings.toml'), '[store]\nurl = "postgres://weft@user-db/weft"\n');
    await writeFile(join(workspaceRoot, '.weft', 'settings.toml'), '[store]\nurl = "postgresql://weft@project-db:5432/weft"\n');
    expect((await loadSettings({ storageDir, workspaceRoot })).storeUrl).toBe('postgresql://weft@project-db:5432/weft');
  });

  it('refuses anything but a PostgreSQL URL, naming file and key without repeating the value', async () => {
    await writeFile(join(workspaceRoot, '.weft', 'settings.toml'), '[store]\nurl = "mysql://root:hunter2@db/weft"\n');
    const error = await failure();
    expect(error.code).toBe('SETTINGS_INVALID');
    expect(error.message).toContain(join(workspaceRoot, '.weft', 'settings.toml'));
    expect(error.message).toContain("key 'store.url' must be a PostgreSQL URL");
    expect(`${error.message} ${JSON.stringify(error.data)}`).not.toContain('hunter2');
  });
});

describe('[run.sandbox]', () => {
  it("layers the user's and the project's tables: paths add up, the project's mode and network win", async () => {
    await writeFile(
      join(storageDir, 'settings.toml'),
      '[run.sandbox]\nmode = "os"\nallow_write = ["~/.cache"]\nnetwork = { allow = ["registry.npmjs.org"] }\n',
    );
    await writeFile(join(workspaceRoot, '.weft', 'settings.toml'), '[run.sandbox]\nallow_write = ["build"]\nnetwork = "none"\n');
    expect((await loadSettings({ storageDir, workspaceRoot })).sandbox).toEqual({
      mode: 'os',
      allowWrite: ['~/.cache', 'build'],
      network: 'none',
    });
  });

  it('refuses a bad value naming the file, the key and the fix', async () => {
    await writeFile(join(workspaceRoot, '.weft', 'settings.toml'), '[run.sandbox]\nmode = "strict"\n');
    const error = await failure();
    expect(error.code).toBe('SETTINGS_INVALID');
    expect(error.message).toBe(
      `${join(workspaceRoot, '.weft', 'settings.toml')}: [run.sandbox]: 'mode' must be "none" or "os", not a string ("strict").`,
    );
  });
});
