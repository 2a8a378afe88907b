/**
 * bench/mcp-call phase (a) — the adapter between the benchmark and weft's MCP hub.
 * Servers are connected by `McpHub` from plain `McpServerConfig`s; calls go through the
 * tools the hub registered in the `ToolRegistry`, two ways:
 *   - `tool-execute`:  `Tool.execute(args, context)`, the registered tool itself (a fresh
 *                      context and abort signal per call, as the executor would pass);
 *   - `tool-executor`: `ToolExecutor.execute(call, session)`, what an agent turn does
 *                      (lookup, argument validation, approval, timeout, output budget).
 * This is the only bench file that imports weft's own code. The executor (with ajv and
 * picomatch) is loaded on its first call, so the startup child's RSS is the hub's alone.
 */
import { setMaxListeners } from 'node:events';
import { silentLogger } from '../../src/core/logger.js';
import { MCP_DEFAULTS, type McpServerConfig } from '../../src/mcp/config/server-config.js';
import { McpHub } from '../../src/mcp/hub/index.js';
import { CallAbort, CallContext } from '../../src/tools/call-abort.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ToolExecutor, ToolSession } from '../../src/tools/tool-executor.js';
import { createFileReadTracker, type Tool, type ToolContext, type ToolResult } from '../../src/tools/tool.js';
import type { ClientDriver, EchoServer } from './driver.js';

const serverName = (index: number) => `echo${index}`;
const toolName = (index: number, tool: string) => `mcp__${serverName(index)}__${tool}`;

function serverConfig(server: EchoServer, index: number): McpServerConfig {
  return {
    name: serverName(index),
    type: 'stdio',
    command: [process.execPath, server.script],
    env: { ECHO_INIT_DELAY_MS: String(server.initDelayMs) },
    envVars: [],
    headers: {},
    protocol: 'streamable_http',
    startupTimeoutMs: MCP_DEFAULTS.startupTimeoutMs,
    toolTimeoutMs: MCP_DEFAULTS.toolTimeoutMs,
    maxToolTimeoutMs: MCP_DEFAULTS.toolTimeoutMs * MCP_DEFAULTS.maxToolTimeoutFactor,
    enabled: true,
    // A server that does not come up must fail the phase, not quietly shrink it.
    required: true,
    disabledTools: [],
    sampling: false,
    source: { kind: 'runtime', file: 'bench/mcp-call' },
  };
}

function textOf(result: ToolResult): string {
  const first = result.content[0];
  if (result.isError || first?.type !== 'text') throw new Error(`unexpected tool result: ${JSON.stringify(result).slice(0, 200)}`);
  return first.text;
}

export const hubDriver: ClientDriver = {
  label: "weft's McpHub",
  async connect(servers, order) {
    const registry = new ToolRegistry();
    const workspaceRoot = process.cwd();
    const hub = new McpHub({ registry, workspaceRoot, env: process.env, logger: silentLogger, clientVersion: 'bench' });
    const configs = servers.map(serverConfig);
    try {
      if (order === 'parallel') await hub.start(configs);
      else for (const config of configs) await hub.addServer(config);
      const notReady = hub.status().filter((status) => status.state !== 'ready');
      if (notReady.length > 0)
        throw new Error(
          `servers not ready: ${notReady.map((status) => `${status.name} (${status.state}: ${status.error ?? '?'})`).join(', ')}`,
        );
    } catch (error) {
      await hub.close();
      throw error;
    }

    const tools = new Map<string, Tool>();
    const toolFor = (index: number, tool: string): Tool => {
      const name = toolName(index, tool);
      let found = tools.get(name);
      if (!found) {
        found = registry.get(name);
        if (!found) throw new Error(`the hub registered no tool '${name}'`);
        tools.set(name, found);
      }
      return found;
    };
    const readFiles = createFileReadTracker();
    // A context per call, as ToolExecutor builds one: each call has its own abort (a real
    // AbortSignal only if the tool asks for one).
    const contextFor = (): ToolContext =>
      new CallContext({ workspaceRoot, cancellation: new CallAbort(), readFiles, logger: silentLogger });

    let executor: ToolExecutor | undefined;
    const loadExecutor = async (): Promise<ToolExecutor> => {
      const [{ ToolExecutor }, { ApprovalPolicy }] = await Promise.all([
        import('../../src/tools/tool-executor.js'),
        import('../../src/tools/approval-policy.js'),
      ]);
      return new ToolExecutor({
        registry,
        policy: new ApprovalPolicy([]),
        approvalMode: { interactive: false, autoApprove: true },
        artifacts: {
          save: () => Promise.reject(new Error('the bench sets the output budget above its largest payload; nothing is cut')),
        },
        logger: silentLogger,
        // Above the 1 MiB payload, so the budget measures its check, not an artifact write.
        outputLimitBytes: 2 * 1024 * 1024,
      });
    };
    const session: ToolSession = { workspaceRoot, readFiles: createFileReadTracker(), signal: new AbortController().signal };
    // 32 calls in flight share the session, as executeAll's calls do (it lifts the same limit).
    setMaxListeners(0, session.signal);
    let callId = 0;

    return {
      callers: [
        {
          key: 'tool-execute',
          label: 'Tool.execute',
          async call(index, tool, args) {
            return textOf(await toolFor(index, tool).execute(args, contextFor()));
          },
        },
        {
          key: 'tool-executor',
          label: 'ToolExecutor.execute',
          async call(index, tool, args) {
            callId += 1;
            executor ??= await loadExecutor();
            const outcome = await executor.execute({ id: `call-${callId}`, name: toolName(index, tool), arguments: args }, session);
            return textOf(outcome.result);
          },
        },
      ],
      close: () => hub.close(),
    };
  },
};
