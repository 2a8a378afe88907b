/**
 * Claude Code (`claude`, npm `@anthropic-ai/claude-code`) as a CLI backend: headless
 * print mode with stream-JSON in and out, so the first message and any pair message go in
 * on stdin and every step comes out as one JSON line (`claude-code-stream.ts` reads them).
 *
 * The stage's config home is `spec.stateDir` (`CLAUDE_CONFIG_DIR`, and `HOME` for what it
 * keeps outside it), so the user's own settings, sessions and MCP servers are never read:
 * only the run's servers (`--mcp-config` with `--strict-mcp-config`) and weft's run-tools
 * server. Tool permissions follow weft's approval rules: rules that Claude Code can apply
 * with the same result become `--allowedTools`/`--disallowedTools`, and every other
 * decision goes to the run-tools server's permission tool (`--permission-prompt-tool`).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import picomatch from 'picomatch';
import type { McpServerConfig } from '../../mcp/config/server-config.js';
import type { ApprovalRule } from '../../tools/approval-policy.js';
import type { CliAdapter, CliInvocation, CliStageSpec } from './cli-adapter.js';
import { claudeCodeStreamParser } from './claude-code-stream.js';
import { CLI_RESUME_MESSAGE } from './cli-resume.js';
import { CLAUDE_TOOL_OF_WEFT_TOOL } from './cli-tool-names.js';

/** Claude Code's native binary per platform package (`install.cjs` links it over `bin/claude.exe` on install). */
function platformPackage(): string | undefined {
  const arch = process.arch === 'x64' || process.arch === 'arm64' ? process.arch : undefined;
  if (arch === undefined) return undefined;
  if (process.platform === 'darwin') return `@anthropic-ai/claude-code-darwin-${arch}`;
  if (process.platform === 'win32') return `@anthropic-ai/claude-code-win32-${arch}`;
  if (process.platform !== 'linux') return undefined;
  const musl =
    (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime === undefined;
  return `@anthropic-ai/claude-code-linux-${arch}${musl ? '-musl' : ''}`;
}

/**
 * The native binary of an installed `@anthropic-ai/claude-code`, found through its platform
 * package: it works even when the package's postinstall did not run (`--ignore-scripts`),
 * where `node_modules/.bin/claude` is only a stub that says the native binary is missing.
 */
export function bundledClaudeBinary(): string | undefined {
  const name = platformPackage();
  if (name === undefined) return undefined;
  try {
    const require = createRequire(import.meta.url);
    return join(dirname(require.resolve(`${name}/package.json`)), process.platform === 'win32' ? 'claude.exe' : 'claude');
  } catch {
    return undefined;
  }
}

/** Claude Code's `mcpServers` entry for one of the run's servers; undefined for what it cannot start (weft's sandbox). */
export function claudeMcpEntry(
  server: McpServerConfig,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, unknown> | undefined {
  switch (server.type) {
    case 'stdio': {
      const passed = Object.fromEntries(server.envVars.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]!]])));
      const command = server.script !== undefined ? ['/bin/sh', '-c', server.script] : (server.command ?? []);
      // Claude Code has no `cwd` for a server: a shell changes directory first.
      const started = server.cwd === undefined ? command : ['/bin/sh', '-c', 'cd "$0" && exec "$@"', server.cwd, ...command];
      return { type: 'stdio', command: started[0], args: started.slice(1), env: { ...passed, ...server.env } };
    }
    case 'http':
    case 'sse': {
      const token = server.bearerTokenEnvVar === undefined ? undefined : env[server.bearerTokenEnvVar];
      return {
        type: server.type,
        url: server.url,
        headers: { ...server.headers, ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }) },
      };
    }
    case 'sandbox':
      return undefined;
    default: {
      const unknown: never = server.type;
      return unknown;
    }
  }
}

/** A rule pattern as Claude Code's tool rule: an exact tool (weft's built-in names mapped), or a whole MCP server. */
function claudeToolRule(pattern: string): string | undefined {
  const server = /^(mcp__[A-Za-z0-9_-]+?)__\*$/.exec(pattern);
  if (server) return server[1];
  if (!/^[A-Za-z0-9_-]+$/.test(pattern)) return undefined;
  return CLAUDE_TOOL_OF_WEFT_TOOL[pattern] ?? pattern;
}

const GLOB = /[*?[\]{}!]/;

/** Whether two rule patterns may match a tool in common (weft's and Claude Code's names alike); unsure means yes. */
function mayOverlap(first: string, second: string): boolean {
  const names = (pattern: string) => [pattern, CLAUDE_TOOL_OF_WEFT_TOOL[pattern] ?? pattern];
  return names(first).some((a) =>
    names(second).some((b) => {
      if (a === b) return true;
      if (GLOB.test(a) && GLOB.test(b)) {
        // Two globs whose literal starts differ match nothing in common.
        const [startA, startB] = [a.split(GLOB)[0]!, b.split(GLOB)[0]!];
        return startA.startsWith(startB) || startB.startsWith(startA);
      }
      return (
        picomatch(a, { dot: true, nonegate: true, noextglob: true })(b) || picomatch(b, { dot: true, nonegate: true, noextglob: true })(a)
      );
    }),
  );
}

/**
 * The rules Claude Code can apply itself with the result weft's policy would give: a rule
 * is passed on only when no later rule that may match the same tool has another action
 * (weft's last match wins, Claude Code's deny wins). Everything else reaches the permission tool, which asks weft.
 */
export function claudePermissionLists(
  rules: readonly ApprovalRule[],
  servers: readonly McpServerConfig[],
): { allowed: string[]; disallowed: string[] } {
  const allowed: string[] = [];
  const disallowed: string[] = [];
  rules.forEach((rule, index) => {
    if (
      rule.action === 'ask' ||
      rules.slice(index + 1).some((later) => later.action !== rule.action && mayOverlap(rule.pattern, later.pattern))
    )
      return;
    const name = claudeToolRule(rule.pattern);
    if (name !== undefined) (rule.action === 'allow' ? allowed : disallowed).push(name);
  });
  for (const server of servers) for (const tool of server.disabledTools) disallowed.push(`mcp__${server.name}__${tool}`);
  return { allowed: [...new Set(allowed)], disallowed: [...new Set(disallowed)] };
}

/** Off: telemetry, error reports, update checks and anything else not needed to answer, so only the model endpoint is reached. */
const QUIET_ENV: Record<string, string> = {
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_BUG_COMMAND: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  // A permission question waits for a person: the permission tool must not time out first.
  MCP_TOOL_TIMEOUT: String(7 * 24 * 60 * 60 * 1000),
};

function invocation(spec: CliStageSpec): CliInvocation {
  const mcpFile = join(spec.stateDir, 'mcp-config.json');
  const servers: Record<string, unknown> = {};
  for (const server of spec.mcpServers) {
    const entry = claudeMcpEntry(server, spec.env);
    if (entry !== undefined) servers[server.name] = entry;
  }
  servers[spec.runTools.name] = { type: 'http', url: spec.runTools.url, headers: spec.runTools.headers };
  const { allowed, disallowed } = claudePermissionLists(spec.permissions.rules, spec.mcpServers);
  const runTools = Object.values(spec.runTools.tools).filter((tool) => tool !== spec.runTools.tools.permission);
  const args = [
    '-p',
    '--output-format',
    'stream-json',
    '--input-format',
    'stream-json',
    '--verbose',
    '--mcp-config',
    mcpFile,
    '--strict-mcp-config',
    '--permission-prompt-tool',
    `mcp__${spec.runTools.name}__${spec.runTools.tools.permission}`,
    '--allowedTools',
    ...runTools.map((tool) => `mcp__${spec.runTools.name}__${tool}`),
    ...allowed,
    ...(disallowed.length > 0 ? ['--disallowedTools', ...disallowed] : []),
    ...(spec.systemPrompt.trim() === '' ? [] : ['--append-system-prompt', spec.systemPrompt]),
    ...(spec.model === undefined ? [] : ['--model', spec.model]),
    ...(spec.maxTurns === undefined ? [] : ['--max-turns', String(spec.maxTurns)]),
    ...(spec.resumeSessionId === undefined ? ['--session-id', spec.sessionId] : ['--resume', spec.resumeSessionId]),
  ];
  return {
    args,
    env: {
      ...QUIET_ENV,
      CLAUDE_CONFIG_DIR: join(spec.stateDir, 'config'),
      HOME: join(spec.stateDir, 'home'),
      CLAUDE_CODE_TMPDIR: join(spec.stateDir, 'tmp'),
    },
    files: [{ path: mcpFile, text: `${JSON.stringify({ mcpServers: servers }, null, 2)}\n` }],
    stdin: { kind: 'messages', first: userMessageLine(spec.resumeSessionId === undefined ? spec.prompt : CLI_RESUME_MESSAGE) },
  };
}

function userMessageLine(text: string): string {
  return JSON.stringify({ type: 'user', message: { role: 'user', content: text } });
}

/**
 * @example
 * cliAdapters.claude.invocation(spec).args; // ['-p', '--output-format', 'stream-json', …]
 */
export const claudeCodeAdapter: CliAdapter = {
  cli: 'claude',
  displayName: 'Claude Code',
  executable: 'claude',
  npmPackage: '@anthropic-ai/claude-code',
  modelEnvironment: { keys: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'], endpoint: 'ANTHROPIC_BASE_URL' },
  bundledBinary: bundledClaudeBinary,
  invocation,
  createParser: claudeCodeStreamParser,
  resumes: true,
  messageLine: userMessageLine,
  loginRequired: (_exitCode, stderrTail) => /not logged in|please run \/login|invalid api key/i.test(stderrTail),
};
