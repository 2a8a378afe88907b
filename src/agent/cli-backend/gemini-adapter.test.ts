import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { mcpServer, stageSpec } from '../../../test/fixtures/cli-backend/stage-spec.js';
import { geminiAdapter, geminiMcpEntry, geminiPolicyRules } from './gemini-adapter.js';

type Rule = Record<string, unknown>;

function ruleFor(rules: Rule[], match: Rule): Rule | undefined {
  return rules.find(
    (rule) => Object.entries(match).every(([key, value]) => rule[key] === value) && (match.toolName !== undefined || rule.toolName === '*'),
  );
}

describe('geminiAdapter.invocation', () => {
  it('runs gemini headless with stream-json, a policy file, a new session id and a private GEMINI_CLI_HOME', () => {
    const started = geminiAdapter.invocation(stageSpec({ model: 'gemini-2.5-flash', maxTurns: 12 }));
    expect(started.args).toEqual([
      '--skip-trust',
      '--output-format',
      'stream-json',
      '--policy',
      '/work/state/gemini-policy.toml',
      '--session-id',
      '3f1b7c2e-0d3a-4c55-9e2b-8a1f0c6d9e01',
      '--model',
      'gemini-2.5-flash',
      '--prompt',
      'Summarise the repository.',
    ]);
    expect(started.env).toEqual({
      GEMINI_CLI_HOME: '/work/state/gemini-home',
      GEMINI_CLI_NO_RELAUNCH: 'true',
      NO_COLOR: '1',
      TMPDIR: '/work/state',
    });
    expect(started.stdin).toEqual({ kind: 'closed' });
    const files = Object.fromEntries(started.files.map((file) => [file.path, file.text]));
    expect(Object.keys(files)).toEqual([
      '/work/state/gemini-home/.gemini/settings.json',
      '/work/state/gemini-policy.toml',
      '/work/state/gemini-home/.gemini/GEMINI.md',
    ]);
    expect(JSON.parse(files['/work/state/gemini-home/.gemini/settings.json']!)).toMatchObject({
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { disableAutoUpdate: true },
      model: { maxSessionTurns: 12 },
      mcpServers: {
        weft: {
          httpUrl: 'http://127.0.0.1:4100/mcp',
          headers: { Authorization: 'Bearer run-tools-token' },
          includeTools: ['ask', 'progress'],
        },
      },
    });
    expect(files['/work/state/gemini-home/.gemini/GEMINI.md']).toBe("You are running the stage 'summarise'.\n");
    expect(parse(files['/work/state/gemini-policy.toml']!)).toHaveProperty('rule');
  });

  it('resumes the session an earlier attempt started', () => {
    const args = geminiAdapter.invocation(stageSpec({ resumeSessionId: '3f1b7c2e-0d3a-4c55-9e2b-8a1f0c6d9e00' })).args;
    expect(args.slice(5, 7)).toEqual(['--resume', '3f1b7c2e-0d3a-4c55-9e2b-8a1f0c6d9e00']);
    // The runner resumes only adapters that say so (codex exec resume <id> / gemini --resume <id>).
    expect(geminiAdapter.resumes).toBe(true);
    expect(args.at(-1)).toMatch(/^weft resumed this session/);
  });

  it('knows a missing key (exit 41) and a refused one from stderr; takes no messages while it runs', () => {
    expect(geminiAdapter.loginRequired?.(41, '')).toBe(true);
    expect(geminiAdapter.loginRequired?.(1, 'When using Gemini API, you must specify the GEMINI_API_KEY environment variable.')).toBe(true);
    expect(geminiAdapter.loginRequired?.(1, 'TypeError: x is undefined')).toBe(false);
    expect(geminiAdapter.messageLine).toBeUndefined();
  });
});

describe('geminiPolicyRules', () => {
  const memory = mcpServer({ name: 'memory', type: 'stdio', command: ['memory'] });

  it("denies what would need a person, allows weft's read-only built-ins and the run tools", () => {
    const rules = geminiPolicyRules(stageSpec({ mcpServers: [memory] }));
    expect(ruleFor(rules, { toolName: '*' })).toMatchObject({ decision: 'deny', priority: 100 });
    expect(ruleFor(rules, { toolName: 'read_file' })).toMatchObject({ decision: 'allow' });
    expect(ruleFor(rules, { toolName: 'run_shell_command' })).toMatchObject({ decision: 'deny' });
    expect(ruleFor(rules, { toolName: 'replace' })).toMatchObject({ decision: 'deny' });
    expect(ruleFor(rules, { mcpName: 'memory' })).toMatchObject({ decision: 'deny', priority: 300 });
    expect(ruleFor(rules, { mcpName: 'weft' })).toMatchObject({ decision: 'allow', priority: 500 });
  });

  it("maps rules on weft's names to Gemini CLI's tools, whole servers and single tools", () => {
    const rules = geminiPolicyRules(
      stageSpec({
        mcpServers: [memory],
        permissions: {
          rules: [
            { pattern: 'shell', action: 'allow' },
            { pattern: 'mcp__memory__*', action: 'allow' },
            { pattern: 'mcp__memory__delete_entities', action: 'ask' },
            { pattern: 'replace', action: 'allow' },
          ],
          autoApprove: false,
        },
      }),
    );
    expect(ruleFor(rules, { toolName: 'run_shell_command' })).toEqual({
      toolName: 'run_shell_command',
      decision: 'allow',
      priority: 200,
      allowRedirection: true,
    });
    expect(ruleFor(rules, { toolName: 'replace' })).toMatchObject({ decision: 'allow' });
    expect(ruleFor(rules, { toolName: 'write_file' })).toMatchObject({ decision: 'deny' });
    expect(ruleFor(rules, { mcpName: 'memory' })).toMatchObject({ decision: 'allow' });
    expect(ruleFor(rules, { mcpName: 'memory', toolName: 'delete_entities' })).toMatchObject({ decision: 'deny', priority: 400 });
  });

  it('allows everything not denied with auto_approve', () => {
    const rules = geminiPolicyRules(stageSpec({ permissions: { rules: [{ pattern: 'web_fetch', action: 'deny' }], autoApprove: true } }));
    expect(ruleFor(rules, { toolName: '*' })).toMatchObject({ decision: 'allow' });
    expect(ruleFor(rules, { toolName: 'write_file' })).toMatchObject({ decision: 'allow' });
    expect(ruleFor(rules, { toolName: 'web_fetch' })).toMatchObject({ decision: 'deny' });
  });
});

describe('geminiMcpEntry', () => {
  it('leaves variables for Gemini CLI to expand and keeps tool lists', () => {
    expect(
      geminiMcpEntry(
        mcpServer({
          name: 'm',
          type: 'stdio',
          command: ['node', 'server.js'],
          envVars: ['HOME'],
          env: { MODE: 'x' },
          cwd: '/srv',
          enabledTools: ['a'],
        }),
      ),
    ).toEqual({
      command: 'node',
      args: ['server.js'],
      env: { HOME: '${HOME}', MODE: 'x' },
      cwd: '/srv',
      timeout: 60_000,
      includeTools: ['a'],
    });
    expect(
      geminiMcpEntry(
        mcpServer({ name: 'd', type: 'http', url: 'https://d.example/mcp', bearerTokenEnvVar: 'D_TOKEN', disabledTools: ['purge'] }),
      ),
    ).toEqual({
      httpUrl: 'https://d.example/mcp',
      headers: { Authorization: 'Bearer ${D_TOKEN}' },
      timeout: 60_000,
      excludeTools: ['purge'],
    });
    expect(geminiMcpEntry(mcpServer({ name: 's', type: 'sse', url: 'https://s.example/sse' }))).toMatchObject({
      url: 'https://s.example/sse',
    });
    expect(geminiMcpEntry(mcpServer({ name: 'box', type: 'sandbox', port: 8000 }))).toBeUndefined();
  });
});
