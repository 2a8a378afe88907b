/**
 * The tools of one run, built by the runner when a stage first needs a tool: built-ins,
 * plus the MCP servers configured for the run's directory and its workflow (waiting only
 * for the ones its stages can call), behind the
 * settings' and the workflow's approval rules (workflow rules last, so they win). The
 * run's MCP servers may sample the run's model and elicit input through run questions
 * (`run-bridges.ts`); the one root they are offered is the run's directory. Servers added
 * and removed at runtime (the store's catalogue) join and leave the hub while the run goes on.
 */
import { homedir } from 'node:os';
import type { Logger } from '../../core/logger.js';
import { loadMcpServerConfigs, localMcpJsonFile } from '../../mcp/config/index.js';
import type { McpServerConfig } from '../../mcp/config/index.js';
import { McpHub, qualifiedToolName, toolPatternMayName, withStderrTail } from '../../mcp/hub/index.js';
import type { RunToolboxFactory } from '../../runs/engine/stage-context.js';
import type { Workflow } from '../../runs/workflow/index.js';
import type { ArtifactSink } from '../../tools/artifact-sink.js';
import { buildToolbox } from '../../tools/toolbox.js';
import type { RunStore } from '../../runs/store/run-store.js';
import { runtimeServerConfig } from '../services/mcp-registry.js';
import { runHubHandlers } from '../mcp-host/run-bridges.js';
import { followRuntimeServers } from './runtime-mcp-follower.js';
import type { RunSettings } from './run-settings.js';
import type { Settings } from '../../core/settings/settings.js';
import type { RunRecord } from '../../runs/model/run-record.js';

export function runToolboxFactory(params: {
  storageDir: string;
  settings: RunSettings;
  env: Record<string, string | undefined>;
  logger: Logger;
  version: string;
  /** The store whose MCP server catalogue (runtime registration) every run's hub follows. */
  catalogue: RunStore;
  /** Where the run's full tool outputs go (the shared database, or files in the storage dir). */
  artifacts: (runId: string) => ArtifactSink;
}): RunToolboxFactory {
  return async (run, workflow, askApproval, bridge, workDir, sandbox) => {
    const settings = await params.settings(run);
    const logger = params.logger.child(`run ${run.id}`);
    const approvalMode = { interactive: false, autoApprove: run.autoApprove, sandboxed: sandbox !== undefined };
    const { registry, executor, policy } = buildToolbox({
      builtins: { shellTimeoutMs: settings.shellTimeoutMs, webFetchAllowHosts: settings.webFetchAllowHosts },
      rules: [...settings.approvalRules, ...workflow.run.approval],
      approvalMode,
      artifacts: params.artifacts(run.id),
      logger,
      outputLimitBytes: settings.outputLimitBytes,
      askApproval,
      ...(sandbox ? { sandbox } : {}),
    });
    const servers = await loadRunMcpServers({ ...params, settings }, run, workflow, logger, workDir);
    const handlers = runHubHandlers({ run, workflow, bridge, policy, approvalMode, llm: settings.llm, env: params.env, logger });
    const hub = new McpHub({
      registry,
      workspaceRoot: workDir,
      env: params.env,
      logger: logger.child('mcp'),
      clientVersion: params.version,
      fastPath: settings.mcpFastPath,
      oauth: { storageDir: params.storageDir },
      handlers,
      ...(sandbox ? { processSandbox: sandbox } : {}),
    });
    // A server no stage can use comes up in the background: one that hangs costs the run nothing.
    await hub.start(
      servers.filter((server) => server.enabled),
      { waitFor: serversNeededBy(workflow) },
    );
    const scope = { workspaceRoot: workDir, homeDir: homedir(), env: params.env, logger };
    const follower = followRuntimeServers({
      store: params.catalogue,
      hub,
      runId: run.id,
      configured: new Set(servers.map((server) => server.name)),
      resolve: (entry) => runtimeServerConfig(entry.name, entry.config, scope),
      logger,
    });
    await follower.synced;
    return {
      registry,
      executor,
      whyMissing: (name) => whyToolMissing(hub, name),
      close: () => {
        follower.stop();
        return hub.close();
      },
    };
  };
}

/**
 * The MCP servers configured for a run (its directory's `.mcp.json` and settings, the
 * workflow's own), resolved; problems are logged. Also what a CLI agent stage hands its CLI.
 */
export async function loadRunMcpServers(
  params: { storageDir: string; env: Record<string, string | undefined>; settings: Settings },
  run: RunRecord,
  workflow: Workflow,
  logger: Logger,
  /** Where the run's stages work: `${WORKDIR}` in server configs, and where `.mcp.json` is read (the run's worktree holds the committed one). */
  workDir: string = run.cwd,
): Promise<McpServerConfig[]> {
  const { servers, problems } = await loadMcpServerConfigs({
    workspaceRoot: workDir,
    homeDir: homedir(),
    userSettings: params.settings.userDocument,
    projectSettings: params.settings.projectDocument,
    localMcpJson: localMcpJsonFile(params.storageDir, run.cwd),
    ...(workflow.run.mcpServers
      ? { workflowServers: { file: workflow.run.mcpServers.file, servers: workflow.run.mcpServers.servers } }
      : {}),
    env: params.env,
    logger,
  });
  for (const problem of problems) if (problem.severity === 'error') logger.warn(problem.message);
  return servers;
}

/**
 * The MCP servers a workflow's stages can call: those a tool stage names, and those an
 * agent stage's `tools` patterns can match (all of them when an agent stage has no filter).
 */
export function serversNeededBy(workflow: Workflow): (server: McpServerConfig) => boolean {
  const patterns: string[] = [];
  for (const node of Object.values(workflow.nodes)) {
    if (node.kind === 'tool') patterns.push(node.tool);
    else if (node.kind === 'agent') {
      if (node.tools === undefined) return () => true;
      patterns.push(...node.tools);
    }
  }
  return (server) => patterns.some((pattern) => toolPatternMayName(pattern, server.name));
}

/** A qualified tool name's server that is not ready says why (`mcp__<server>__…`), so a stage names the cause, not just an unknown tool. */
function whyToolMissing(hub: McpHub, name: string): string | undefined {
  const server = hub.status().find((status) => name.startsWith(qualifiedToolName(status.name, '')));
  if (server === undefined || server.state === 'ready') return undefined;
  const state = `MCP server '${server.name}' is ${server.state}`;
  return server.error ? withStderrTail(`${state}: ${server.error}`, server.stderrTail ?? [], 5) : state;
}
