/**
 * The MCP client hub on its own, for an application that embeds weft only for its MCP
 * servers (`weft-runtime/mcp`): servers from the project's `.mcp.json` and/or given as
 * objects, their tools in a registry behind the same executor as a run's (schema check,
 * approval rules, timeouts, output budget). Loads no store, no model SDK and no MCP server.
 */
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { WeftError } from '../../core/errors.js';
import { createLogger, stderrSink, type Logger, type LogLevel } from '../../core/logger.js';
import { loadMcpServerConfigs, resolveServerConfig, type McpConfigProblem, type McpServerConfig } from '../../mcp/config/index.js';
import { McpHub, type McpHubHandlers } from '../../mcp/hub/index.js';
import type { ApprovalRule } from '../../tools/approval-policy.js';
import { fileArtifactSink } from '../../tools/artifact-sink.js';
import { ToolRegistry } from '../../tools/registry.js';
import type { ApprovalPrompt, ToolExecutor } from '../../tools/tool-executor.js';
import { buildToolbox } from '../../tools/toolbox.js';
import type { Tool } from '../../tools/tool.js';

export interface McpToolboxOptions {
  /** Root offered to servers, default cwd of stdio servers, and where `.mcp.json` is read. Default: `process.cwd()`. */
  cwd: string;
  /** Servers in `.mcp.json`'s `mcpServers` shape; they win over same-named project entries. */
  servers?: Record<string, unknown>;
  /** Also read the project's `.mcp.json` and `.cursor/mcp.json` (default true). */
  projectConfig?: boolean;
  env?: Record<string, string | undefined>;
  /** Rules over qualified names (`mcp__<server>__<tool>`); the last match wins. */
  approval?: readonly ApprovalRule[];
  /** Asked when a rule says `ask`; without it such calls are refused. */
  askApproval?: ApprovalPrompt;
  /** Unmatched MCP tools are allowed when true (default), refused when false. */
  autoApprove?: boolean;
  /** Applies to tools without their own timeout. */
  timeoutMs?: number;
  /** Output budget per call; the rest is saved as an artifact. */
  outputLimitBytes?: number;
  /** Where cut outputs are kept. Default: a folder under the OS temp dir. */
  artifactsDir?: string;
  handlers?: McpHubHandlers;
  logLevel?: LogLevel;
  clientVersion?: string;
  /** Told when a server's tools were added or removed (start, `list_changed`, reconnect). */
  onToolsChanged?: (server: string, change: { added: string[]; removed: string[] }) => void;
}

export interface McpToolbox {
  hub: McpHub;
  registry: ToolRegistry;
  executor: ToolExecutor;
  /** Enabled servers: the given objects, then the project's entries of other names. */
  servers: McpServerConfig[];
  /** Problems in the project's config files (those servers were skipped). */
  problems: McpConfigProblem[];
  logger: Logger;
  env: Record<string, string | undefined>;
}

/** A registry that tells its owner when a server's tool list changed. */
class ObservedRegistry extends ToolRegistry {
  constructor(private readonly onChange: McpToolboxOptions['onToolsChanged']) {
    super();
  }

  override replaceGroup(group: string, tools: Tool[]): { added: string[]; removed: string[] } {
    const change = super.replaceGroup(group, tools);
    if (change.added.length > 0 || change.removed.length > 0) this.onChange?.(group, change);
    return change;
  }
}

/** Servers given as objects, validated like `.mcp.json` entries; any invalid one throws `CONFIG_INVALID` naming it. */
export function configsFromObjects(
  cwd: string,
  entries: Record<string, unknown>,
  env: Record<string, string | undefined>,
  logger: Logger,
): McpServerConfig[] {
  const configs: McpServerConfig[] = [];
  const problems: McpConfigProblem[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    const resolved = resolveServerConfig({
      name,
      entry,
      source: { kind: 'runtime', file: 'servers option' },
      format: 'json',
      workspaceRoot: cwd,
      homeDir: homedir(),
      env,
      logger,
    });
    problems.push(...resolved.problems.filter((problem) => problem.severity === 'error'));
    if (resolved.config) configs.push(resolved.config);
  }
  if (problems.length > 0)
    throw new WeftError('CONFIG_INVALID', problems.map((problem) => problem.message).join('\n'), { data: { problems } });
  return configs;
}

/** Loads the configs and builds the hub and executor; `servers` are the enabled configs to pass to `hub.start`. */
export async function createMcpToolbox(options: McpToolboxOptions): Promise<McpToolbox> {
  const env = options.env ?? process.env;
  const logger = createLogger(stderrSink(options.logLevel ?? 'warn'));
  const given = configsFromObjects(options.cwd, options.servers ?? {}, env, logger);
  const project =
    options.projectConfig === false
      ? { servers: [], problems: [] }
      : await loadMcpServerConfigs({ workspaceRoot: options.cwd, homeDir: homedir(), env, logger });
  const givenNames = new Set(given.map((server) => server.name));
  const servers = [...given, ...project.servers.filter((server) => !givenNames.has(server.name))].filter((server) => server.enabled);
  const { registry, executor } = buildToolbox({
    registry: new ObservedRegistry(options.onToolsChanged),
    builtins: false,
    rules: options.approval ?? [],
    approvalMode: { interactive: options.askApproval !== undefined, autoApprove: options.autoApprove ?? true },
    artifacts: fileArtifactSink(options.artifactsDir ?? join(tmpdir(), 'weft-artifacts')),
    logger,
    ...(options.askApproval ? { askApproval: options.askApproval } : {}),
    ...(options.timeoutMs !== undefined ? { defaultTimeoutMs: options.timeoutMs } : {}),
    ...(options.outputLimitBytes !== undefined ? { outputLimitBytes: options.outputLimitBytes } : {}),
  });
  const hub = new McpHub({
    registry,
    workspaceRoot: options.cwd,
    env,
    logger: logger.child('mcp'),
    clientVersion: options.clientVersion ?? '0.0.0',
    ...(options.handlers ? { handlers: options.handlers } : {}),
  });
  return { hub, registry, executor, servers, problems: project.problems, logger, env };
}
