/**
 * `weft-runtime/mcp`: weft's MCP client hub for any Node program — many servers (stdio,
 * Streamable HTTP, SSE, OAuth tokens from `weft mcp login`), reconnection, `list_changed`,
 * and every call through weft's executor (argument check, approval rules, timeouts, output
 * budget, cancellation). Importing it loads no SQLite, no AI SDK and no MCP server code.
 *
 * @module weft-runtime/mcp
 */
// The hub and the MCP SDK load on connect, so importing this entry stays cheap.
import type { McpToolbox } from '../app/mcp-host/mcp-toolbox.js';
import type { LogLevel } from '../core/logger.js';
import type { JsonSchema } from '../core/json-schema.js';
import type { McpConfigProblem } from '../mcp/config/index.js';
import type { McpServerStatus } from '../mcp/hub/types.js';
import type { ApprovalRule } from '../tools/approval-policy.js';
import { createFileReadTracker, type ToolResult } from '../tools/tool.js';

export { WeftError, type WeftErrorCode } from '../core/errors.js';
export type { ApprovalRule, ApprovalAction } from '../tools/approval-policy.js';
export type { ToolContent, ToolResult } from '../tools/tool.js';
export type { McpServerState, McpServerStatus, McpServerTimings } from '../mcp/hub/types.js';
export type { McpConfigSeverity } from '../mcp/config/problems.js';
export type { McpTransportType } from '../mcp/config/server-config.js';
export type { JsonSchema, LogLevel, McpConfigProblem };

/** A call a rule says to `ask` about. */
export interface ApprovalRequest {
  /** Qualified tool name, `mcp__<server>__<tool>`. */
  name: string;
  server: string;
  arguments: unknown;
}

/** Which servers to connect and the rules every call goes through. */
export interface McpClientOptions {
  /** Root offered to servers, default cwd of stdio servers, and where `.mcp.json` is read. Default: `process.cwd()`. */
  cwd?: string;
  /** Servers in `.mcp.json`'s `mcpServers` shape (`command`/`args`/`env`, or `type`/`url`/`headers`, …); they win over same-named project entries. */
  servers?: Record<string, Record<string, unknown>>;
  /** Also connect the servers of the project's `.mcp.json` and `.cursor/mcp.json` (default true). */
  projectConfig?: boolean;
  /** The environment `${VAR}` references read and stdio servers get a safe subset of. Default: `process.env`. */
  env?: Record<string, string | undefined>;
  /** Rules over qualified names (`mcp__<server>__<tool>`, globs); the last match wins. */
  approval?: readonly ApprovalRule[];
  /** Asked when a rule says `ask`; without it such calls are refused. */
  askApproval?: (request: ApprovalRequest, signal: AbortSignal) => Promise<boolean>;
  /** Tools no rule names are allowed when true (default), refused when false. */
  autoApprove?: boolean;
  /** Per-call time limit for tools without their own. */
  timeoutMs?: number;
  /** Output budget per call in bytes; the full output is saved as a file named in the result. */
  outputLimitBytes?: number;
  /** Where cut outputs are kept. Default: a folder under the OS temp dir. */
  artifactsDir?: string;
  logLevel?: LogLevel;
  /** Told when a server's tools were added or removed (connect, `list_changed`, reconnect). */
  onToolsChanged?: (server: string, change: { added: string[]; removed: string[] }) => void;
}

/** A tool of a connected server, under its qualified name. */
export interface McpToolInfo {
  /** Qualified: `mcp__<server>__<tool>`. */
  name: string;
  server: string;
  description: string;
  inputSchema: JsonSchema;
}

/** Options of one call: `signal` cancels it. */
export interface McpCallToolOptions {
  signal?: AbortSignal;
}

/** The signal of a call given none: never aborted, made once rather than per call. */
const NEVER_ABORTED = new AbortController().signal;

/**
 * @example
 * const mcp = await connectMcp({ servers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } } });
 * const result = await mcp.callTool('mcp__memory__read_graph', {});
 * await mcp.close();
 */
export class McpClient {
  readonly #toolbox: McpToolbox;
  readonly #cwd: string;
  /** One per client, as one per agent session: the per-call cost stays at the hub's. */
  readonly #readFiles = createFileReadTracker();
  #calls = 0;

  private constructor(toolbox: McpToolbox, cwd: string) {
    this.#toolbox = toolbox;
    this.#cwd = cwd;
  }

  /** Use {@link connectMcp}. */
  static async connect(options: McpClientOptions = {}): Promise<McpClient> {
    const cwd = options.cwd ?? process.cwd();
    const { askApproval, ...rest } = options;
    const { createMcpToolbox } = await import('../app/mcp-host/mcp-toolbox.js');
    const toolbox = await createMcpToolbox({
      ...rest,
      cwd,
      ...(askApproval
        ? {
            askApproval: (call, tool, signal) =>
              askApproval({ name: call.name, server: tool.server ?? '', arguments: call.arguments }, signal),
          }
        : {}),
    });
    const client = new McpClient(toolbox, cwd);
    await toolbox.hub.start(toolbox.servers);
    return client;
  }

  /** Problems found in the project's config files (the servers concerned were skipped). */
  get problems(): McpConfigProblem[] {
    return this.#toolbox.problems;
  }

  /** Every server's state, tools, reconnects and timings. */
  status(): McpServerStatus[] {
    return this.#toolbox.hub.status();
  }

  /** The tools of the connected servers now (they change on `list_changed` and reconnects). */
  tools(): McpToolInfo[] {
    return this.#toolbox.registry
      .list()
      .map((tool) => ({ name: tool.name, server: tool.server ?? '', description: tool.description, inputSchema: tool.inputSchema }));
  }

  /**
   * Calls a tool by qualified name. A refused, failed, timed-out or cancelled call resolves
   * with `isError: true` and the reason as text; it never throws.
   */
  async callTool(name: string, args: unknown, options: McpCallToolOptions = {}): Promise<ToolResult> {
    const call = { id: `call-${++this.#calls}`, name, arguments: args };
    const outcome = await this.#toolbox.executor.execute(call, {
      workspaceRoot: this.#cwd,
      readFiles: this.#readFiles,
      signal: options.signal ?? NEVER_ABORTED,
    });
    return outcome.result;
  }

  /** Adds a server while connected; resolves with its status once connected or failed. */
  async addServer(name: string, entry: Record<string, unknown>): Promise<McpServerStatus> {
    const { configsFromObjects } = await import('../app/mcp-host/mcp-toolbox.js');
    const [config] = configsFromObjects(this.#cwd, { [name]: entry }, this.#toolbox.env, this.#toolbox.logger);
    return this.#toolbox.hub.addServer(config!);
  }

  /** Disconnects a server and drops its tools. */
  removeServer(name: string): Promise<void> {
    return this.#toolbox.hub.removeServer(name);
  }

  /** Ends every server (stdio processes are reaped). */
  close(): Promise<void> {
    return this.#toolbox.hub.close();
  }
}

/** Connects every configured server (those that fail are reported in `status()`; a `required` one rejects). */
export function connectMcp(options: McpClientOptions = {}): Promise<McpClient> {
  return McpClient.connect(options);
}
