/**
 * The MCP client hub: connects every enabled configured server in parallel, registers
 * their tools in the shared registry, reports per-server status, hands out resources and
 * prompts, and shuts every server down again. One `ServerConnection` per server does
 * the actual work; this class is the manager around them.
 */
import type { ContentBlock } from '@modelcontextprotocol/client';
import { WeftError, errorMessage } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { ToolProgress, ToolResult } from '../../tools/tool.js';
import type { McpServerConfig } from '../config/server-config.js';
import { DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
import { convertContentBlock, convertResourceContents } from './content.js';
import { ServerConnection } from './server-connection.js';
import type {
  HostEnv,
  McpHubHandlers,
  McpPrompt,
  McpPromptInfo,
  McpResourceInfo,
  McpResourceRead,
  McpResourceTemplateInfo,
  McpServerStatus,
} from './types.js';
import { processWatchdog, type GroupWatchdog } from '../../core/process-watchdog.js';
import type { ProcessSandbox } from './group-child.js';

export interface McpHubOptions {
  registry: ToolRegistry;
  /** The workspace root: default cwd of stdio servers and the one root offered to servers. */
  workspaceRoot: string;
  /** The host environment; stdio servers get a safe subset of it. */
  env: HostEnv;
  /** `[mcp] fast_path` from the settings (absent: on); `WEFT_MCP_FAST_PATH` wins over it. */
  fastPath?: boolean | undefined;
  logger: Logger;
  handlers?: McpHubHandlers;
  /** Reported in `initialize` as the version of `weft`. */
  clientVersion?: string;
  /** Reconnect delays (tests make them short). */
  backoff?: Partial<BackoffOptions>;
  random?: () => number;
  /** Epoch ms for connection states and timings (default `Date.now`). */
  clock?: () => number;
  /** Shutdown of stdio servers: wait after closing stdin, then after SIGTERM (sandbox servers: SIGTERM at once). Defaults 500 ms, 2 s. */
  shutdown?: { eofGraceMs?: number; killGraceMs?: number };
  /** Liveness ping of HTTP/SSE servers after a transport error. Default 5 s. */
  pingTimeoutMs?: number;
  /** Reaps servers when weft dies; `false` turns it off. Default: the process-wide watchdog. */
  watchdog?: GroupWatchdog | false;
  onResourceUpdated?: (server: string, uri: string) => void;
  /**
   * OAuth for http/sse servers that demand it: tokens stored by `weft mcp login` under
   * `<storageDir>/mcp-oauth/` are sent and refreshed. Without it a 401 is only reported.
   */
  oauth?: { storageDir: string };
  /** How long a sandbox server may take to listen on its port (the larger of this and its startup_timeout). Default 30 s. */
  sandboxListenTimeoutMs?: number;
  /** The run's OS sandbox (`[run.sandbox]`): stdio servers start inside it. */
  processSandbox?: ProcessSandbox;
}

export interface McpStartOptions {
  /** The servers to wait for (`required` ones always are); default: all. */
  waitFor?: (config: McpServerConfig) => boolean;
  /** Stop waiting after this long; servers still connecting go on in the background. */
  patienceMs?: number;
}

export interface McpCallOptions {
  signal?: AbortSignal;
  onProgress?: (progress: ToolProgress) => void;
}

export class McpHub {
  readonly #options: McpHubOptions;
  readonly #connections = new Map<string, ServerConnection>();

  constructor(options: McpHubOptions) {
    this.#options = options;
    if (options.watchdog === undefined) processWatchdog.useLogger(options.logger);
  }

  /**
   * Connects every enabled server in parallel, each within its `startup_timeout`, and
   * resolves once the ones `options` waits for are ready or failed; the others go on
   * connecting in the background and register their tools when ready. Servers that fail
   * are reported and skipped; rejects with `MCP_SERVER_FAILED` when a `required` one
   * failed (the others stay connected; `close()` ends them).
   */
  async start(configs: readonly McpServerConfig[], options: McpStartOptions = {}): Promise<McpServerStatus[]> {
    const enabled = configs.filter((config) => {
      if (!config.enabled) this.#options.logger.debug(`MCP [${config.name}] skipped (enabled = false)`);
      return config.enabled;
    });
    const waited: Promise<McpServerStatus>[] = [];
    // The status each start ended with; servers still connecting report their state now.
    const ended = new Map<string, McpServerStatus>();
    for (const config of enabled) {
      const started = this.addServer(config).then((status) => (ended.set(config.name, status), status));
      if (config.required || (options.waitFor?.(config) ?? true)) waited.push(started);
      else started.catch((error: unknown) => this.#options.logger.warn(`MCP server '${config.name}': ${errorMessage(error)}`));
    }
    await settleWithin(Promise.all(waited), options.patienceMs);
    const statuses = enabled.flatMap((config) => ended.get(config.name) ?? this.#connections.get(config.name)?.status() ?? []);
    const failedRequired = enabled.filter((config) => config.required && this.#connections.get(config.name)?.state === 'failed');
    if (failedRequired.length > 0) {
      const lines = failedRequired.map((config) => `'${config.name}': ${this.#connections.get(config.name)?.failure ?? 'failed'}`);
      throw new WeftError(
        'MCP_SERVER_FAILED',
        `Required MCP server${failedRequired.length > 1 ? 's' : ''} failed to start: ${lines.join('\n')}`,
        {
          data: { servers: failedRequired.map((config) => config.name) },
        },
      );
    }
    return statuses;
  }

  /** Connects one more server (runtime registration); resolves once it is ready or failed. */
  async addServer(config: McpServerConfig): Promise<McpServerStatus> {
    if (this.#connections.has(config.name)) {
      throw new WeftError('CONFIG_INVALID', `MCP server '${config.name}' is already connected; remove it first.`, {
        data: { server: config.name },
      });
    }
    const connection = new ServerConnection(config, this.#connectionDeps());
    this.#connections.set(config.name, connection);
    await connection.start();
    const status = connection.status();
    if (status.state === 'failed')
      this.#options.logger.warn(`MCP server '${config.name}' failed to start: ${connection.failure ?? status.error ?? 'unknown error'}`);
    else if (status.state === 'ready')
      this.#options.logger.debug(`MCP [${config.name}] ready in ${status.timings.connectMs ?? 0}ms with ${status.tools} tools`);
    return status;
  }

  /** Disconnects a server and removes its tools. */
  async removeServer(name: string): Promise<void> {
    const connection = this.#connection(name);
    this.#connections.delete(name);
    await connection.close();
  }

  status(): McpServerStatus[] {
    return [...this.#connections.values()].map((connection) => connection.status());
  }

  serverStatus(name: string): McpServerStatus {
    return this.#connection(name).status();
  }

  /** The server and original tool name behind a qualified name such as `mcp__github__create_issue`. */
  resolveTool(qualifiedName: string): { server: string; tool: string } | undefined {
    for (const connection of this.#connections.values()) {
      const tool = connection.originalToolName(qualifiedName);
      if (tool !== undefined) return { server: connection.name, tool };
    }
    return undefined;
  }

  /** Calls a tool by the server's own name (the CLI's `weft mcp call`); agents go through the registry. */
  callTool(server: string, tool: string, args: Record<string, unknown>, options: McpCallOptions = {}): Promise<ToolResult> {
    const signal = options.signal ?? new AbortController().signal;
    return this.#connection(server).callTool(tool, args, { signal, ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
  }

  async listResources(server?: string): Promise<McpResourceInfo[]> {
    return this.#selected(server).flatMap((connection) =>
      connection.discovery.resources.map((resource) => ({
        server: connection.name,
        uri: resource.uri,
        name: resource.name,
        ...optional({ title: resource.title, description: resource.description, mimeType: resource.mimeType }),
      })),
    );
  }

  async listResourceTemplates(server?: string): Promise<McpResourceTemplateInfo[]> {
    return this.#selected(server).flatMap((connection) =>
      connection.discovery.resourceTemplates.map((template) => ({
        server: connection.name,
        uriTemplate: template.uriTemplate,
        name: template.name,
        ...optional({ title: template.title, description: template.description, mimeType: template.mimeType }),
      })),
    );
  }

  async readResource(server: string, uri: string, options: { signal?: AbortSignal } = {}): Promise<McpResourceRead> {
    const result = await this.#connection(server).request(
      `resources/read of '${uri}'`,
      (client, requestOptions) => client.readResource({ uri }, { ...requestOptions, cacheMode: 'bypass' }),
      options.signal,
    );
    return { server, uri, contents: convertResourceContents(result) };
  }

  async listPrompts(server?: string): Promise<McpPromptInfo[]> {
    return this.#selected(server).flatMap((connection) =>
      connection.discovery.prompts.map((prompt) => ({
        server: connection.name,
        name: prompt.name,
        ...optional({ title: prompt.title, description: prompt.description }),
        arguments: (prompt.arguments ?? []).map((argument) => ({
          name: argument.name,
          ...optional({ description: argument.description, required: argument.required }),
        })),
      })),
    );
  }

  async getPrompt(
    server: string,
    name: string,
    args: Record<string, string> = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<McpPrompt> {
    const result = await this.#connection(server).request(
      `prompts/get of '${name}'`,
      (client, requestOptions) => client.getPrompt({ name, arguments: args }, requestOptions),
      options.signal,
    );
    return {
      server,
      name,
      ...optional({ description: result.description }),
      messages: result.messages.map((message) => ({ role: message.role, content: convertContentBlock(message.content as ContentBlock) })),
    };
  }

  /** Asks the server for `notifications/resources/updated` about `uri` (renewed after reconnects). */
  subscribeResource(server: string, uri: string): Promise<void> {
    return this.#connection(server).subscribeResource(uri);
  }

  unsubscribeResource(server: string, uri: string): Promise<void> {
    return this.#connection(server).unsubscribeResource(uri);
  }

  /** Disconnects every server (stdio: close stdin, SIGTERM, SIGKILL after the grace period). */
  async close(): Promise<void> {
    const connections = [...this.#connections.values()];
    this.#connections.clear();
    await Promise.all(connections.map((connection) => connection.close()));
  }

  #connection(name: string): ServerConnection {
    const connection = this.#connections.get(name);
    if (!connection) {
      const known = [...this.#connections.keys()].sort();
      throw new WeftError(
        'MCP_SERVER_NOT_FOUND',
        `No MCP server named '${name}'.${known.length ? ` Configured: ${known.join(', ')}.` : ' No MCP servers are configured.'}`,
        {
          data: { server: name },
        },
      );
    }
    return connection;
  }

  #selected(server: string | undefined): ServerConnection[] {
    return server === undefined ? [...this.#connections.values()] : [this.#connection(server)];
  }

  #connectionDeps(): ConstructorParameters<typeof ServerConnection>[1] {
    const options = this.#options;
    const watchdog = options.watchdog === false ? undefined : (options.watchdog ?? processWatchdog);
    return {
      registry: options.registry,
      workspaceRoot: options.workspaceRoot,
      env: options.env,
      logger: options.logger,
      handlers: options.handlers ?? {},
      clientVersion: options.clientVersion ?? '0.0.0',
      fastPath: options.fastPath,
      backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
      random: options.random ?? Math.random,
      clock: options.clock ?? Date.now,
      pingTimeoutMs: options.pingTimeoutMs ?? 5000,
      ...(watchdog ? { watchdog } : {}),
      ...(options.shutdown?.eofGraceMs !== undefined ? { eofGraceMs: options.shutdown.eofGraceMs } : {}),
      ...(options.shutdown?.killGraceMs !== undefined ? { killGraceMs: options.shutdown.killGraceMs } : {}),
      ...(options.onResourceUpdated ? { onResourceUpdated: options.onResourceUpdated } : {}),
      ...(options.oauth ? { oauth: { storageDir: options.oauth.storageDir } } : {}),
      ...(options.sandboxListenTimeoutMs !== undefined ? { sandboxListenTimeoutMs: options.sandboxListenTimeoutMs } : {}),
      ...(options.processSandbox ? { processSandbox: options.processSandbox } : {}),
    };
  }
}

/** Waits for `work`, or for `ms` when given, whichever comes first. */
async function settleWithin(work: Promise<unknown>, ms: number | undefined): Promise<void> {
  if (ms === undefined) {
    await work;
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const patience = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([work, patience]);
  } finally {
    clearTimeout(timer);
  }
}

/** The defined entries of `fields` only, so optional properties stay absent rather than undefined. */
function optional<T extends Record<string, unknown>>(fields: T): Partial<{ [K in keyof T]: Exclude<T[K], undefined> }> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<{
    [K in keyof T]: Exclude<T[K], undefined>;
  }>;
}
