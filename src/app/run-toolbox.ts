/**
 * The tools of one run, built by the runner when a stage first needs a tool: built-ins,
 * plus the MCP servers configured for the run's directory and its workflow, behind the
 * settings' and the workflow's approval rules (workflow rules last, so they win). The
 * run's MCP servers may sample the run's model and elicit input through run questions
 * (`run-bridges.ts`); the one root they are offered is the run's directory.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../core/logger.js';
import { loadMcpServerConfigs, localMcpJsonFile } from '../mcp/config/index.js';
import { McpHub } from '../mcp/hub/index.js';
import type { RunToolboxFactory } from '../runs/engine/stage-context.js';
import { ApprovalPolicy } from '../tools/approval-policy.js';
import { fileArtifactSink } from '../tools/artifact-sink.js';
import { builtinTools } from '../tools/builtin/index.js';
import { ToolRegistry } from '../tools/registry.js';
import { ToolExecutor } from '../tools/tool-executor.js';
import { runHubHandlers } from './mcp-host/run-bridges.js';
import type { RunSettings } from './run-settings.js';

export function runToolboxFactory(params: { storageDir: string; settings: RunSettings; env: Record<string, string | undefined>; logger: Logger; version: string }): RunToolboxFactory {
  return async (run, workflow, askApproval, bridge) => {
    const settings = await params.settings(run);
    const registry = new ToolRegistry();
    for (const tool of builtinTools({ shellTimeoutMs: settings.shellTimeoutMs })) registry.register(tool);
    const logger = params.logger.child(`run ${run.id}`);
    const { servers, problems } = await loadMcpServerConfigs({
      workspaceRoot: run.cwd,
      homeDir: homedir(),
      userSettings: settings.userDocument,
      projectSettings: settings.projectDocument,
      localMcpJson: localMcpJsonFile(params.storageDir, run.cwd),
      ...(workflow.run.mcpServers ? { workflowServers: { file: workflow.run.mcpServers.file, servers: workflow.run.mcpServers.servers } } : {}),
      env: params.env,
      logger,
    });
    for (const problem of problems) if (problem.severity === 'error') logger.warn(problem.message);
    const policy = new ApprovalPolicy([...settings.approvalRules, ...workflow.run.approval]);
    const approvalMode = { interactive: false, autoApprove: run.autoApprove };
    const handlers = runHubHandlers({ run, workflow, bridge, policy, approvalMode, llm: settings.llm, env: params.env, logger });
    const hub = new McpHub({ registry, workspaceRoot: run.cwd, env: params.env, logger: logger.child('mcp'), clientVersion: params.version, oauth: { storageDir: params.storageDir }, handlers });
    await hub.start(servers.filter((server) => server.enabled));
    const executor = new ToolExecutor({
      registry,
      policy,
      approvalMode,
      artifacts: fileArtifactSink(join(params.storageDir, 'artifacts', run.id)),
      logger,
      outputLimitBytes: settings.outputLimitBytes,
      askApproval,
    });
    return { registry, executor, close: () => hub.close() };
  };
}
