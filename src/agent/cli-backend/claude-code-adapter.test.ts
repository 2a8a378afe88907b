// Claude Code's argv, environment and MCP config from a stage spec, and its stream lines as events.
import { describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../mcp/config/server-config.js';
import type { CliStageSpec } from './cli-adapter.js';
import { claudeCodeAdapter, claudeMcpEntry, claudePermissionLists } from './claude-code-adapter.js';
import { CLI_RESUME_MESSAGE } from './cli-resume.js';
import { claudeCodeStreamParser } from './claude-code-stream.js';

function server(fields: Partial<McpServerConfig> & Pick<McpServerConfig, 'name' | 'type'>): McpServerConfig {
  return {
    env: {},
    envVars: [],
    headers: {},
    protocol: 'streamable_http',
    startupTimeoutMs: 1,
    toolTimeoutMs: 1,
    maxToolTimeoutMs: 1,
    enabled: true,
    required: false,
    disabledTools: [],
    sampling: false,
    source: { kind: 'project-mcp-json', file: '/w/.mcp.json' },
    ...fields,
  };
}

const SPEC: CliStageSpec = {
  prompt: 'Fix the bug.',
  systemPrompt: 'You are in weft.',
  model: 'claude-sonnet-4-5',
  maxTurns: 7,
  timeoutMs: undefined,
  workspaceDir: '/w',
  stateDir: '/state/run/code',
  mcpServers: [
    server({
      name: 'files',
      type: 'stdio',
      command: ['npx', 'fs-server', '/w'],
      envVars: ['HOME_TOKEN'],
      env: { MODE: 'ro' },
      disabledTools: ['delete'],
    }),
  ],
  runTools: {
    name: 'weft_run',
    url: 'http://127.0.0.1:5000/mcp',
    headers: { Authorization: 'Bearer t' },
    tools: { ask: 'ask_question', progress: 'report_progress', permission: 'approve_tool_call' },
  },
  permissions: {
    rules: [
      { pattern: 'shell', action: 'allow' },
      { pattern: 'mcp__github__*', action: 'deny' },
    ],
    autoApprove: false,
  },
  sessionId: '11111111-2222-3333-4444-555555555555',
  resumeSessionId: undefined,
  env: { HOME_TOKEN: 'tok' },
  interactive: true,
};

describe('claudeCodeAdapter.invocation', () => {
  it('maps the stage to print mode with stream JSON, its MCP config, tool rules, model, turns and session', () => {
    const invocation = claudeCodeAdapter.invocation(SPEC);
    expect(invocation.args).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--input-format',
      'stream-json',
      '--verbose',
      '--mcp-config',
      '/state/run/code/mcp-config.json',
      '--strict-mcp-config',
      '--permission-prompt-tool',
      'mcp__weft_run__approve_tool_call',
      '--allowedTools',
      'mcp__weft_run__ask_question',
      'mcp__weft_run__report_progress',
      'Bash',
      '--disallowedTools',
      'mcp__github',
      'mcp__files__delete',
      '--append-system-prompt',
      'You are in weft.',
      '--model',
      'claude-sonnet-4-5',
      '--max-turns',
      '7',
      '--session-id',
      '11111111-2222-3333-4444-555555555555',
    ]);
    expect(invocation.env).toMatchObject({
      CLAUDE_CONFIG_DIR: '/state/run/code/config',
      HOME: '/state/run/code/home',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
    });
    expect(JSON.parse(invocation.files[0]!.text)).toEqual({
      mcpServers: {
        files: { type: 'stdio', command: 'npx', args: ['fs-server', '/w'], env: { HOME_TOKEN: 'tok', MODE: 'ro' } },
        weft_run: { type: 'http', url: 'http://127.0.0.1:5000/mcp', headers: { Authorization: 'Bearer t' } },
      },
    });
    expect(invocation.stdin).toEqual({
      kind: 'messages',
      first: JSON.stringify({ type: 'user', message: { role: 'user', content: 'Fix the bug.' } }),
    });
  });

  it('resumes an earlier session with a message that says so', () => {
    const invocation = claudeCodeAdapter.invocation({ ...SPEC, resumeSessionId: 'abc' });
    expect(invocation.args.slice(-2)).toEqual(['--resume', 'abc']);
    expect(invocation.stdin).toEqual({
      kind: 'messages',
      first: JSON.stringify({ type: 'user', message: { role: 'user', content: CLI_RESUME_MESSAGE } }),
    });
  });
});

describe('claudePermissionLists', () => {
  it('passes on only the rules no later rule contradicts; globs other than a whole server go to the permission tool', () => {
    expect(
      claudePermissionLists(
        [
          { pattern: 'mcp__db__*', action: 'deny' },
          { pattern: 'mcp__db__read', action: 'allow' },
          { pattern: 'write_file', action: 'deny' },
          { pattern: 'mcp__*', action: 'deny' },
        ],
        [],
      ),
    ).toEqual({ allowed: [], disallowed: ['Write'] });
    expect(
      claudePermissionLists(
        [
          { pattern: 'shell', action: 'allow' },
          { pattern: 'Bash', action: 'ask' },
        ],
        [],
      ),
    ).toEqual({ allowed: [], disallowed: [] });
    expect(
      claudePermissionLists(
        [
          { pattern: 'shell', action: 'allow' },
          { pattern: 'mcp__github__*', action: 'deny' },
          { pattern: 'read_*', action: 'allow' },
        ],
        [],
      ),
    ).toEqual({ allowed: ['Bash'], disallowed: ['mcp__github'] });
  });
});

describe('claudeMcpEntry', () => {
  it('starts a server with a cwd through a shell, sends a bearer token from its variable, and leaves out sandbox servers', () => {
    expect(claudeMcpEntry(server({ name: 'a', type: 'stdio', command: ['node', 's.js'], cwd: '/srv' }), {})).toEqual({
      type: 'stdio',
      command: '/bin/sh',
      args: ['-c', 'cd "$0" && exec "$@"', '/srv', 'node', 's.js'],
      env: {},
    });
    expect(
      claudeMcpEntry(server({ name: 'b', type: 'http', url: 'https://x/mcp', bearerTokenEnvVar: 'TOKEN' }), { TOKEN: 'secret' }),
    ).toEqual({ type: 'http', url: 'https://x/mcp', headers: { Authorization: 'Bearer secret' } });
    expect(claudeMcpEntry(server({ name: 'c', type: 'sandbox', command: ['x'] }), {})).toBeUndefined();
  });
});

describe('claudeCodeStreamParser', () => {
  it('reads the session, a turn of text and a tool call, its result, and the answer with totals', () => {
    const parser = claudeCodeStreamParser();
    const lines = [
      { type: 'system', subtype: 'init', session_id: 's1', model: 'claude-x', tools: ['Bash'] },
      {
        type: 'assistant',
        message: { id: 'm1', content: [{ type: 'text', text: 'Looking.' }], usage: { input_tokens: 10, output_tokens: 2 } },
      },
      {
        type: 'assistant',
        message: {
          id: 'm1',
          content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }],
          usage: { input_tokens: 10, output_tokens: 2 },
        },
      },
      {
        type: 'user',
        message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'a.txt' }], is_error: false }] },
      },
      { type: 'rate_limit_event' },
      {
        type: 'assistant',
        message: { id: 'm2', content: [{ type: 'text', text: 'Done.' }], usage: { input_tokens: 20, output_tokens: 1 } },
      },
      {
        type: 'result',
        subtype: 'success',
        is_error: false,
        result: 'Done.',
        num_turns: 2,
        total_cost_usd: 0.01,
        usage: { input_tokens: 30, cache_read_input_tokens: 5, output_tokens: 9 },
        permission_denials: [{ tool_name: 'Write', tool_use_id: 't9' }],
      },
    ];
    expect(lines.flatMap((line) => parser.line(JSON.stringify(line)))).toEqual([
      { kind: 'session-started', sessionId: 's1', model: 'claude-x', tools: ['Bash'] },
      { kind: 'text', text: 'Looking.' },
      { kind: 'tool-call-requested', callId: 't1', tool: 'Bash', arguments: { command: 'ls' } },
      { kind: 'turn-finished', usage: { inputTokens: 10, outputTokens: 2 } },
      { kind: 'tool-result', callId: 't1', isError: false, text: 'a.txt' },
      { kind: 'text', text: 'Done.' },
      { kind: 'turn-finished', usage: { inputTokens: 20, outputTokens: 1 } },
      {
        kind: 'final',
        text: 'Done.',
        isError: false,
        usage: { inputTokens: 35, outputTokens: 9, costUsd: 0.01 },
        turns: 2,
        permissionDenials: [{ tool: 'Write', callId: 't9' }],
      },
    ]);
  });

  it('reports a missing login and lines that are not its stream', () => {
    const parser = claudeCodeStreamParser();
    expect(
      parser.line(
        JSON.stringify({
          type: 'assistant',
          error: 'authentication_failed',
          message: { content: [{ type: 'text', text: 'Not logged in · Please run /login' }] },
        }),
      ),
    ).toEqual([{ kind: 'error', message: 'Not logged in · Please run /login', loginRequired: true }]);
    expect(parser.line('Welcome!')).toEqual([{ kind: 'malformed', line: 'Welcome!', reason: 'not JSON' }]);
    expect(parser.line('[1,2]')).toEqual([{ kind: 'malformed', line: '[1,2]', reason: 'no "type"' }]);
  });
});
