/**
 * Codex (`codex`, npm `@openai/codex`) as a CLI backend: `codex exec --json`, one Codex
 * turn per stage, its JSONL read by `codex-stream.ts`.
 *
 * Each stage gets its own `CODEX_HOME` under `spec.stateDir` with a `config.toml` weft
 * writes: the model provider, the run's MCP servers and weft's run-tools server, the
 * sandbox, and everything that would reach the network other than the model off
 * (update checks, analytics, plugins, apps, web search). The user's own Codex config and
 * login are not read.
 *
 * Codex is pointed at its model the way the OpenAI SDKs are: `OPENAI_BASE_URL` (default
 * https://api.openai.com/v1) and `OPENAI_API_KEY` from the environment. Codex ignores
 * `OPENAI_BASE_URL` itself, so weft turns it into a custom provider (`wire_api =
 * "responses"`).
 *
 * Approvals: `codex exec` never asks (its approval policy is always "never"), so weft's
 * rules decide up front. Writing files (`write_file` and `edit_file` allowed) selects the
 * `workspace-write` sandbox, else `read-only`; a `shell` that is not allowed turns Codex's
 * shell tools off; per MCP server, tools weft would not allow are left out
 * (`enabled_tools`/`disabled_tools`). What would need a person is denied. Codex refuses
 * what its sandbox blocks and tells the model, not the stream.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { stringify } from 'smol-toml';
import type { McpServerConfig } from '../../mcp/config/server-config.js';
import type { CliAdapter, CliInvocation, CliStageSpec } from './cli-adapter.js';
import { CliPermissionReader, type McpServerAccess } from './cli-permission-reader.js';
import { CLI_RESUME_MESSAGE } from './cli-resume.js';
import { codexLoginRequired, codexStreamParser, CODEX_SHELL_TOOL } from './codex-stream.js';

/** The provider id weft's config gives Codex. */
export const CODEX_PROVIDER = 'weft';
const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** Codex features that reach beyond the model endpoint or add tools a stage has no use for. */
const FEATURES_OFF = [
  'apps',
  'plugins',
  'remote_plugin',
  'plugin_sharing',
  'tool_suggest',
  'skill_mcp_dependency_install',
  'in_app_updates',
  'daemon_auto_start',
  'computer_use',
  'browser_use',
  'image_generation',
  'goals',
] as const;

/** Codex's native binary ships in a platform package; `@openai/codex/bin/codex.js` starts it. */
const NATIVE_PACKAGES: Readonly<Record<string, { name: string; triple: string }>> = {
  'linux-x64': { name: '@openai/codex-linux-x64', triple: 'x86_64-unknown-linux-musl' },
  'linux-arm64': { name: '@openai/codex-linux-arm64', triple: 'aarch64-unknown-linux-musl' },
  'darwin-x64': { name: '@openai/codex-darwin-x64', triple: 'x86_64-apple-darwin' },
  'darwin-arm64': { name: '@openai/codex-darwin-arm64', triple: 'aarch64-apple-darwin' },
};

/** The native binary of an installed `@openai/codex` (no Node wrapper in between), else its `bin/codex.js`. */
export function bundledCodexBinary(): string | undefined {
  const require = createRequire(import.meta.url);
  const native = NATIVE_PACKAGES[`${process.platform}-${process.arch}`];
  try {
    if (native !== undefined) return join(dirname(require.resolve(`${native.name}/package.json`)), 'vendor', native.triple, 'bin', 'codex');
  } catch {
    // No platform package: fall back to the wrapper, which says what is missing.
  }
  try {
    return join(dirname(require.resolve('@openai/codex/package.json')), 'bin', 'codex.js');
  } catch {
    return undefined;
  }
}

type TomlTable = Record<string, unknown>;

/** Codex's `[mcp_servers.<name>]` transport part; undefined for what it cannot speak (SSE, weft's sandbox). */
export function codexMcpTransport(server: McpServerConfig): TomlTable | undefined {
  switch (server.type) {
    case 'stdio': {
      const command = server.script !== undefined ? ['/bin/sh', '-c', server.script] : (server.command ?? []);
      return {
        command: command[0],
        args: command.slice(1),
        env: server.env,
        ...(server.envVars.length > 0 ? { env_vars: server.envVars } : {}),
        ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
      };
    }
    case 'http':
      return {
        url: server.url,
        http_headers: server.headers,
        ...(server.bearerTokenEnvVar === undefined ? {} : { bearer_token_env_var: server.bearerTokenEnvVar }),
      };
    case 'sse':
    case 'sandbox':
      return undefined;
    default: {
      const unknown: never = server.type;
      return unknown;
    }
  }
}

/** Which tools Codex offers from a server: the server's own lists narrowed by weft's rules; undefined when none. */
export function codexToolLists(
  server: Pick<McpServerConfig, 'enabledTools' | 'disabledTools'>,
  access: McpServerAccess,
): TomlTable | undefined {
  const disabled = [...new Set([...server.disabledTools, ...access.denied])];
  if (access.allowByDefault) {
    return {
      ...(server.enabledTools === undefined ? {} : { enabled_tools: server.enabledTools }),
      ...(disabled.length > 0 ? { disabled_tools: disabled } : {}),
    };
  }
  const enabled = access.allowed.filter((tool) => (server.enabledTools?.includes(tool) ?? true) && !disabled.includes(tool));
  return enabled.length === 0 ? undefined : { enabled_tools: enabled };
}

/**
 * The tools weft passes on are the ones its rules allow: Codex must not hold them back for
 * an approval it cannot ask for (it does, for tools that do not say they only read).
 */
const APPROVED_BY_WEFT = { default_tools_approval_mode: 'approve' } as const;

function mcpServers(spec: CliStageSpec, reader: CliPermissionReader): TomlTable {
  const servers: TomlTable = {};
  for (const server of spec.mcpServers) {
    if (!server.enabled) continue;
    const transport = codexMcpTransport(server);
    const tools = codexToolLists(server, reader.mcpServer(server.name));
    if (transport === undefined || tools === undefined) continue;
    servers[server.name] = {
      ...transport,
      ...tools,
      ...APPROVED_BY_WEFT,
      startup_timeout_sec: Math.ceil(server.startupTimeoutMs / 1000),
      tool_timeout_sec: Math.ceil(server.toolTimeoutMs / 1000),
      required: server.required,
    };
  }
  const { runTools } = spec;
  // Codex cannot hand a permission prompt to a tool: only asking and progress are offered.
  servers[runTools.name] = {
    url: runTools.url,
    http_headers: runTools.headers,
    enabled_tools: [runTools.tools.ask, runTools.tools.progress],
    ...APPROVED_BY_WEFT,
    tool_timeout_sec: 7 * 24 * 60 * 60,
  };
  return servers;
}

/** The stage's `config.toml`. */
export function codexConfig(spec: CliStageSpec): TomlTable {
  const reader = new CliPermissionReader(spec.permissions);
  const shell = reader.builtinAllowed(CODEX_SHELL_TOOL, 'shell', false);
  // Codex writes files through its shell and `apply_patch`: writing is one switch, on when weft would let an agent both write and edit files.
  const writes = reader.builtinAllowed('apply_patch', 'write_file', false) && reader.builtinAllowed('apply_patch', 'edit_file', false);
  const features: TomlTable = Object.fromEntries(FEATURES_OFF.map((name) => [name, false]));
  if (!shell) Object.assign(features, { shell_tool: false, unified_exec: false });
  return {
    ...(spec.model === undefined ? {} : { model: spec.model }),
    model_provider: CODEX_PROVIDER,
    approval_policy: 'never',
    // Inside weft's OS sandbox, Codex's own (bubblewrap again, nested) stands aside: weft's boundary already holds the writes to the workspace.
    sandbox_mode: writes ? (spec.sandboxed === true ? 'danger-full-access' : 'workspace-write') : 'read-only',
    ...(spec.systemPrompt.trim() === '' ? {} : { developer_instructions: spec.systemPrompt }),
    // Codex starts its first turn without optional servers still starting after this grace; weft's own agents wait for them.
    mcp_optional_startup_grace_ms: Math.max(0, ...spec.mcpServers.map((server) => server.startupTimeoutMs)),
    check_for_update_on_startup: false,
    web_search: 'disabled',
    analytics: { enabled: false },
    feedback: { enabled: false },
    // Sub-agents: `[features] multi_agent` is deprecated in favour of this.
    agents: { enabled: false },
    features,
    model_providers: {
      [CODEX_PROVIDER]: {
        name: 'weft',
        base_url: spec.env.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL,
        env_key: 'OPENAI_API_KEY',
        wire_api: 'responses',
      },
    },
    mcp_servers: mcpServers(spec, reader),
  };
}

function invocation(spec: CliStageSpec): CliInvocation {
  const home = join(spec.stateDir, 'codex-home');
  const common = ['--json', '--skip-git-repo-check', '--color', 'never', '-C', spec.workspaceDir];
  const args =
    spec.resumeSessionId === undefined
      ? ['exec', ...common, spec.prompt]
      : ['exec', ...common, 'resume', spec.resumeSessionId, CLI_RESUME_MESSAGE];
  return {
    args,
    env: { CODEX_HOME: home, NO_COLOR: '1' },
    files: [{ path: join(home, 'config.toml'), text: stringify(codexConfig(spec)) }],
    stdin: { kind: 'closed' },
    // Where bubblewrap is installed, Codex's sandbox runs `bwrap … codex-linux-sandbox …` and finds that
    // name on PATH; Codex links it itself, but not when CODEX_HOME is under a temp dir (as it is in tests).
    binaryAliases: ['codex-linux-sandbox'],
  };
}

/**
 * @example
 * codexAdapter.invocation(spec).args; // ['exec', '--json', '--skip-git-repo-check', …, 'the prompt']
 */
export const codexAdapter: CliAdapter = {
  cli: 'codex',
  displayName: 'Codex',
  executable: 'codex',
  npmPackage: '@openai/codex',
  modelEnvironment: { keys: ['OPENAI_API_KEY'], endpoint: 'OPENAI_BASE_URL' },
  bundledBinary: bundledCodexBinary,
  invocation,
  createParser: codexStreamParser,
  resumes: true,
  loginRequired: (_exitCode, stderrTail) => codexLoginRequired(stderrTail),
};
