import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { mcpServer, stageSpec } from '../../../test/fixtures/cli-backend/stage-spec.js';
import type { CliStageSpec } from './cli-adapter.js';
import { codexAdapter, codexConfig } from './codex-adapter.js';

type Toml = Record<string, unknown>;

function writtenConfig(spec: CliStageSpec): Toml {
  const files = codexAdapter.invocation(spec).files;
  expect(files.map((file) => file.path)).toEqual(['/work/state/codex-home/config.toml']);
  return parse(files[0]!.text) as Toml;
}

const memory = mcpServer({
  name: 'memory',
  type: 'stdio',
  command: ['npx', '-y', '@modelcontextprotocol/server-memory'],
  env: { MEMORY_FILE_PATH: '/m.jsonl' },
  envVars: ['HOME'],
});

describe('codexAdapter.invocation', () => {
  it('runs codex exec --json in the workspace with the prompt, a private CODEX_HOME and stdin closed', () => {
    const started = codexAdapter.invocation(stageSpec({ model: 'gpt-5.1-codex' }));
    expect(started.args).toEqual([
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--color',
      'never',
      '-C',
      '/work/space',
      'Summarise the repository.',
    ]);
    expect(started.env).toEqual({ CODEX_HOME: '/work/state/codex-home', NO_COLOR: '1' });
    expect(started.stdin).toEqual({ kind: 'closed' });
    const config = writtenConfig(stageSpec({ model: 'gpt-5.1-codex' }));
    expect(config).toMatchObject({
      model: 'gpt-5.1-codex',
      model_provider: 'weft',
      approval_policy: 'never',
      developer_instructions: "You are running the stage 'summarise'.",
      check_for_update_on_startup: false,
      web_search: 'disabled',
      analytics: { enabled: false },
    });
    expect(config.features).toMatchObject({ apps: false, plugins: false, remote_plugin: false, tool_suggest: false });
  });

  it('resumes the session an earlier attempt started', () => {
    const args = codexAdapter.invocation(stageSpec({ resumeSessionId: '01a221dd-c63c-78e3-9595-3c472b18e106' })).args;
    expect(args.slice(-3, -1)).toEqual(['resume', '01a221dd-c63c-78e3-9595-3c472b18e106']);
    // The runner resumes only adapters that say so (codex exec resume <id> / gemini --resume <id>).
    expect(codexAdapter.resumes).toBe(true);
    expect(args.at(-1)).toMatch(/^weft resumed this session/);
  });

  it('points the provider at OPENAI_BASE_URL with the key from OPENAI_API_KEY, else at OpenAI', () => {
    expect(codexConfig(stageSpec({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:4000/v1' } })).model_providers).toEqual({
      weft: { name: 'weft', base_url: 'http://127.0.0.1:4000/v1', env_key: 'OPENAI_API_KEY', wire_api: 'responses' },
    });
    expect(codexConfig(stageSpec()).model_providers).toMatchObject({ weft: { base_url: 'https://api.openai.com/v1' } });
  });

  it('without rules or auto_approve: read-only sandbox, no shell, no MCP server tools; the run tools always', () => {
    const config = writtenConfig(stageSpec({ mcpServers: [memory] }));
    expect(config.sandbox_mode).toBe('read-only');
    expect(config.features).toMatchObject({ shell_tool: false, unified_exec: false });
    expect(Object.keys(config.mcp_servers as Toml)).toEqual(['weft']);
    expect((config.mcp_servers as Toml).weft).toEqual({
      url: 'http://127.0.0.1:4100/mcp',
      http_headers: { Authorization: 'Bearer run-tools-token' },
      enabled_tools: ['ask', 'progress'],
      default_tools_approval_mode: 'approve',
      tool_timeout_sec: 604_800,
    });
  });

  it('with auto_approve: workspace-write sandbox, the shell, every server', () => {
    const config = writtenConfig(stageSpec({ mcpServers: [memory], permissions: { rules: [], autoApprove: true } }));
    expect(config.sandbox_mode).toBe('workspace-write');
    expect(config.features).not.toHaveProperty('shell_tool');
    expect((config.mcp_servers as Toml).memory).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory'],
      env: { MEMORY_FILE_PATH: '/m.jsonl' },
      env_vars: ['HOME'],
      // weft's rules allowed the server: Codex must not hold its tools back for an approval.
      default_tools_approval_mode: 'approve',
      startup_timeout_sec: 10,
      tool_timeout_sec: 60,
      required: false,
    });
  });

  it("maps weft's rules by weft's or Codex's tool names; the last matching rule wins", () => {
    const rules = [
      { pattern: '*', action: 'allow' as const },
      { pattern: 'edit_file', action: 'ask' as const },
      { pattern: 'exec_command', action: 'deny' as const },
      { pattern: 'mcp__memory__delete_*', action: 'deny' as const },
      { pattern: 'mcp__memory__delete_entities', action: 'deny' as const },
    ];
    const config = writtenConfig(stageSpec({ mcpServers: [memory], permissions: { rules, autoApprove: false } }));
    // Codex writes files through one switch: an edit that needs a person keeps the sandbox read-only.
    expect(config.sandbox_mode).toBe('read-only');
    expect(config.features).toMatchObject({ shell_tool: false });
    expect((config.mcp_servers as Toml).memory).toMatchObject({ disabled_tools: ['delete_entities'] });
  });

  it('offers only the tools rules allow by name when a server is not allowed as a whole, and drops it when none', () => {
    const rules = [{ pattern: 'mcp__memory__read_graph', action: 'allow' as const }];
    const allowed = writtenConfig(
      stageSpec({
        mcpServers: [memory, mcpServer({ name: 'docs', type: 'http', url: 'https://docs.example/mcp' })],
        permissions: { rules, autoApprove: false },
      }),
    );
    expect((allowed.mcp_servers as Toml).memory).toMatchObject({ enabled_tools: ['read_graph'] });
    expect(allowed.mcp_servers).not.toHaveProperty('docs');
  });

  it('passes HTTP servers with their headers and bearer variable, and leaves out what Codex cannot speak', () => {
    const servers = [
      mcpServer({
        name: 'docs',
        type: 'http',
        url: 'https://docs.example/mcp',
        headers: { 'X-Team': 'core' },
        bearerTokenEnvVar: 'DOCS_TOKEN',
        disabledTools: ['purge'],
      }),
      mcpServer({ name: 'legacy', type: 'sse', url: 'https://legacy.example/sse' }),
      mcpServer({ name: 'off', type: 'stdio', command: ['off'], enabled: false }),
    ];
    const config = writtenConfig(stageSpec({ mcpServers: servers, permissions: { rules: [], autoApprove: true } }));
    expect(Object.keys(config.mcp_servers as Toml)).toEqual(['docs', 'weft']);
    expect((config.mcp_servers as Toml).docs).toMatchObject({
      url: 'https://docs.example/mcp',
      http_headers: { 'X-Team': 'core' },
      bearer_token_env_var: 'DOCS_TOKEN',
      disabled_tools: ['purge'],
    });
  });

  it('has no way to take a message while it runs, and knows a login error from its stderr', () => {
    expect(codexAdapter.messageLine).toBeUndefined();
    expect(codexAdapter.loginRequired?.(1, 'Missing environment variable: `OPENAI_API_KEY`.')).toBe(true);
    expect(codexAdapter.loginRequired?.(1, 'error: unexpected argument')).toBe(false);
  });
});
