/**
 * Gemini CLI (`gemini`, npm `@google/gemini-cli`) as a CLI backend: headless
 * `gemini -p … --output-format stream-json`, read by `gemini-stream.ts`.
 *
 * Each stage gets its own Gemini home under `spec.stateDir` (`GEMINI_CLI_HOME`) holding
 * the `settings.json` weft writes — API-key auth, the run's MCP servers and weft's
 * run-tools server, usage statistics, telemetry and update checks off — and weft's system
 * prompt as the global `GEMINI.md`, which Gemini CLI adds to its own. The user's own
 * settings, login and sessions are not read. The model endpoint comes from the
 * environment as Gemini CLI reads it: `GEMINI_API_KEY`, and `GOOGLE_GEMINI_BASE_URL`
 * for another endpoint than Google's.
 *
 * Approvals: headless Gemini CLI cannot ask (a tool that needs a confirmation is left out
 * of the model's tools), so weft's rules decide up front and become a policy file
 * (`--policy`): each built-in, each MCP server and each tool a rule names exactly gets
 * `allow` or `deny`; what would need a person is denied.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { stringify } from 'smol-toml';
import type { McpServerConfig } from '../../mcp/config/server-config.js';
import type { CliAdapter, CliInvocation, CliStageSpec } from './cli-adapter.js';
import { CliPermissionReader } from './cli-permission-reader.js';
import { CLI_RESUME_MESSAGE } from './cli-resume.js';
import { geminiLoginRequired, geminiStreamParser } from './gemini-stream.js';

/**
 * Gemini CLI's built-in tools: the weft built-in that does the same (so a rule written
 * for weft's `shell` covers `run_shell_command`), and whether it only reads.
 */
export const GEMINI_BUILTINS: Readonly<Record<string, { weft?: string; readOnly: boolean }>> = {
  run_shell_command: { weft: 'shell', readOnly: false },
  read_file: { weft: 'read_file', readOnly: true },
  write_file: { weft: 'write_file', readOnly: false },
  replace: { weft: 'edit_file', readOnly: false },
  grep_search: { weft: 'grep', readOnly: true },
  glob: { weft: 'glob', readOnly: true },
  list_directory: { weft: 'list_dir', readOnly: true },
  web_fetch: { weft: 'web_fetch', readOnly: true },
  read_many_files: { weft: 'read_file', readOnly: true },
  list_mcp_resources: { readOnly: true },
  read_mcp_resource: { readOnly: true },
  list_background_processes: { readOnly: true },
  read_background_output: { readOnly: true },
  update_topic: { readOnly: true },
  write_todos: { readOnly: true },
  google_web_search: { readOnly: false },
  save_memory: { readOnly: false },
  invoke_agent: { readOnly: false },
  enter_plan_mode: { readOnly: false },
  activate_skill: { readOnly: false },
};

/** Policy priorities: a later, more specific layer wins over an earlier one. */
const PRIORITY = { everything: 100, builtin: 200, server: 300, tool: 400, runTools: 500 } as const;

/** The `gemini.js` of an installed `@google/gemini-cli`. */
export function bundledGeminiBinary(): string | undefined {
  try {
    return join(dirname(createRequire(import.meta.url).resolve('@google/gemini-cli/package.json')), 'bundle', 'gemini.js');
  } catch {
    return undefined;
  }
}

type Json = Record<string, unknown>;

/** Gemini CLI's `mcpServers` entry for one of the run's servers; undefined for weft's sandbox. Variables are left for Gemini CLI to expand. */
export function geminiMcpEntry(server: McpServerConfig): Json | undefined {
  const common = {
    timeout: server.toolTimeoutMs,
    ...(server.enabledTools === undefined ? {} : { includeTools: server.enabledTools }),
    ...(server.disabledTools.length > 0 ? { excludeTools: server.disabledTools } : {}),
  };
  const headers = {
    ...server.headers,
    ...(server.bearerTokenEnvVar === undefined ? {} : { Authorization: `Bearer \${${server.bearerTokenEnvVar}}` }),
  };
  switch (server.type) {
    case 'stdio': {
      const command = server.script !== undefined ? ['/bin/sh', '-c', server.script] : (server.command ?? []);
      const passed = Object.fromEntries(server.envVars.map((name) => [name, `\${${name}}`]));
      return {
        command: command[0],
        args: command.slice(1),
        env: { ...passed, ...server.env },
        ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
        ...common,
      };
    }
    case 'http':
      return { httpUrl: server.url, headers, ...common };
    case 'sse':
      return { url: server.url, headers, ...common };
    case 'sandbox':
      return undefined;
    default: {
      const unknown: never = server.type;
      return unknown;
    }
  }
}

function decision(allowed: boolean): 'allow' | 'deny' {
  return allowed ? 'allow' : 'deny';
}

/** weft's approval rules as Gemini CLI policy rules (`[[rule]]` of a `--policy` file). */
export function geminiPolicyRules(spec: Pick<CliStageSpec, 'permissions' | 'mcpServers' | 'runTools'>): Json[] {
  const reader = new CliPermissionReader(spec.permissions);
  const rules: Json[] = [{ toolName: '*', decision: decision(spec.permissions.autoApprove), priority: PRIORITY.everything }];
  for (const [tool, { weft, readOnly }] of Object.entries(GEMINI_BUILTINS)) {
    const allowed = reader.builtinAllowed(tool, weft, readOnly);
    // weft's `shell` allows any command; Gemini CLI still asks about redirections unless told.
    rules.push({
      toolName: tool,
      decision: decision(allowed),
      priority: PRIORITY.builtin,
      ...(allowed && tool === 'run_shell_command' ? { allowRedirection: true } : {}),
    });
  }
  for (const server of spec.mcpServers) {
    const access = reader.mcpServer(server.name);
    rules.push({ mcpName: server.name, toolName: '*', decision: decision(access.allowByDefault), priority: PRIORITY.server });
    for (const tool of access.allowed) rules.push({ mcpName: server.name, toolName: tool, decision: 'allow', priority: PRIORITY.tool });
    for (const tool of access.denied) rules.push({ mcpName: server.name, toolName: tool, decision: 'deny', priority: PRIORITY.tool });
  }
  rules.push({ mcpName: spec.runTools.name, toolName: '*', decision: 'allow', priority: PRIORITY.runTools });
  return rules;
}

/** The stage's `settings.json`. */
export function geminiSettings(spec: CliStageSpec): Json {
  const servers: Json = {};
  for (const server of spec.mcpServers) {
    const entry = server.enabled ? geminiMcpEntry(server) : undefined;
    if (entry !== undefined) servers[server.name] = entry;
  }
  const { runTools } = spec;
  // Gemini CLI cannot hand a permission prompt to a tool: only asking and progress are offered.
  servers[runTools.name] = {
    httpUrl: runTools.url,
    headers: runTools.headers,
    includeTools: [runTools.tools.ask, runTools.tools.progress],
    timeout: 7 * 24 * 60 * 60 * 1000,
  };
  return {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
    ...(spec.maxTurns === undefined ? {} : { model: { maxSessionTurns: spec.maxTurns } }),
    mcpServers: servers,
  };
}

function invocation(spec: CliStageSpec): CliInvocation {
  const home = join(spec.stateDir, 'gemini-home');
  const policyFile = join(spec.stateDir, 'gemini-policy.toml');
  const session = spec.resumeSessionId === undefined ? ['--session-id', spec.sessionId] : ['--resume', spec.resumeSessionId];
  const prompt = spec.resumeSessionId === undefined ? spec.prompt : CLI_RESUME_MESSAGE;
  const files = [
    { path: join(home, '.gemini', 'settings.json'), text: `${JSON.stringify(geminiSettings(spec), null, 2)}\n` },
    { path: policyFile, text: stringify({ rule: geminiPolicyRules(spec) }) },
    ...(spec.systemPrompt.trim() === '' ? [] : [{ path: join(home, '.gemini', 'GEMINI.md'), text: `${spec.systemPrompt}\n` }]),
  ];
  return {
    args: [
      '--skip-trust',
      '--output-format',
      'stream-json',
      '--policy',
      policyFile,
      ...session,
      ...(spec.model === undefined ? [] : ['--model', spec.model]),
      '--prompt',
      prompt,
    ],
    // No relaunch: Gemini CLI otherwise starts itself again as a child to raise its heap limit.
    // TMPDIR: it writes an error report there for each failed model call; those go with the stage.
    env: { GEMINI_CLI_HOME: home, GEMINI_CLI_NO_RELAUNCH: 'true', NO_COLOR: '1', TMPDIR: spec.stateDir },
    files,
    stdin: { kind: 'closed' },
  };
}

/**
 * @example
 * geminiAdapter.invocation(spec).args; // ['--skip-trust', '--output-format', 'stream-json', '--policy', …, '--prompt', 'the prompt']
 */
export const geminiAdapter: CliAdapter = {
  cli: 'gemini',
  displayName: 'Gemini CLI',
  executable: 'gemini',
  npmPackage: '@google/gemini-cli',
  modelEnvironment: { keys: ['GEMINI_API_KEY'], endpoint: 'GOOGLE_GEMINI_BASE_URL' },
  bundledBinary: bundledGeminiBinary,
  invocation,
  createParser: geminiStreamParser,
  resumes: true,
  loginRequired: (exitCode, stderrTail) => exitCode === 41 || geminiLoginRequired(stderrTail),
};
