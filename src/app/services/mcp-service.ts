/**
 * The application service behind `weft mcp …` and behind every command that needs MCP
 * tools: loads the server configs, starts the hub on demand, and reports status. The
 * `weft mcp` commands that read the config (`list`, `get`, `test`, `login`, `logout`) fail
 * with `CONFIG_INVALID` on any config error, because the config is what they are about;
 * commands that only use tools warn and start the other servers. A failing `required`
 * server fails the command.
 */
import { homedir } from 'node:os';
import { WeftError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { Settings } from '../../core/settings/settings.js';
import {
  hasErrors,
  loadMcpServerConfigs,
  localMcpJsonFile,
  problemsError,
  type LoadedMcpServerConfigs,
  type McpConfigProblem,
  type McpServerConfig,
} from '../../mcp/config/index.js';
import { McpHub, type McpHubHandlers, type McpServerStatus } from '../../mcp/hub/index.js';
import { qualifiedToolName } from '../../mcp/hub/tool-names.js';
import { loginMcpServer, logoutMcpServer, type McpLoginResult } from '../../mcp/oauth/index.js';
import type { ToolRegistry } from '../../tools/registry.js';

export interface McpServerRow {
  name: string;
  type: McpServerConfig['type'];
  source: string;
  enabled: boolean;
  status: McpServerStatus['state'] | 'disabled' | 'not-started';
  tools: number;
  error: string | null;
}

export interface McpServerTestReport {
  name: string;
  type: McpServerConfig['type'];
  serverInfo: { name: string; version: string } | null;
  protocolVersion: string | null;
  /** Handshake plus discovery of tools, resources and prompts. */
  connectMs: number;
  tools: { name: string; description: string }[];
  resources: { count: number; ms: number; items: string[] };
  prompts: { count: number; ms: number; items: string[] };
}

export interface McpServiceDeps {
  registry: ToolRegistry;
  settings: Settings;
  workspaceRoot: string;
  env: Record<string, string | undefined>;
  logger: Logger;
  clientVersion: string;
  storageDir: string;
  /** Sampling and elicitation from servers (terminal prompts for `weft tools call`). */
  handlers?: McpHubHandlers;
}

export class McpService {
  #loaded: Promise<LoadedMcpServerConfigs> | undefined;
  #tolerated: Promise<LoadedMcpServerConfigs> | undefined;
  #hub: McpHub | undefined;
  readonly #deps: McpServiceDeps;

  constructor(deps: McpServiceDeps) {
    this.#deps = deps;
  }

  /**
   * Every configured server (winning entries only) and the problems found while loading.
   * Warnings were logged as they were found; errors, which skip an entry or a file, are
   * logged here once, as warnings, for the commands that carry on without them.
   */
  configs(): Promise<LoadedMcpServerConfigs> {
    this.#tolerated ??= this.#load().then((loaded) => {
      for (const problem of loaded.problems) if (problem.severity === 'error') this.#deps.logger.warn(problem.message);
      return loaded;
    });
    return this.#tolerated;
  }

  /** The configs when they have no errors; otherwise `CONFIG_INVALID` listing every error. */
  async checkedConfigs(): Promise<LoadedMcpServerConfigs> {
    const loaded = await this.#load();
    if (hasErrors(loaded.problems)) throw problemsError(loaded.problems);
    return loaded;
  }

  /** One server's config, from a config without errors (see `checkedConfigs`). */
  async config(name: string): Promise<McpServerConfig> {
    const { servers } = await this.checkedConfigs();
    const found = servers.find((server) => server.name === name);
    if (!found) {
      const names = servers.map((server) => server.name);
      throw new WeftError(
        'MCP_SERVER_NOT_FOUND',
        `No MCP server named '${name}'.${names.length > 0 ? ` Configured: ${names.join(', ')}.` : ''} Add one with 'weft mcp add ${name} -- <command…>'.`,
      );
    }
    return found;
  }

  /**
   * Connects the given servers (all enabled ones when `names` is absent) and registers
   * their tools. Servers already started are left as they are. With `patienceMs`, resolves
   * after that long at the latest; servers still connecting go on in the background.
   */
  async start(names?: readonly string[], options: { patienceMs?: number } = {}): Promise<McpServerStatus[]> {
    const { servers } = await this.configs();
    const hub = this.#hubInstance();
    const started = new Set(hub.status().map((status) => status.name));
    const wanted = servers.filter(
      (server) => server.enabled && !started.has(server.name) && (names === undefined || names.includes(server.name)),
    );
    if (wanted.length > 0) await hub.start(wanted, options);
    return hub.status();
  }

  /** Starts only the server a qualified tool name can belong to, so `tools call` stays quick. */
  async startForTool(toolName: string): Promise<void> {
    if (!toolName.startsWith('mcp__')) return;
    const { servers } = await this.configs();
    const owners = servers.filter((server) => toolName.startsWith(qualifiedToolName(server.name, '')));
    // A very long server name is shortened inside the tool name; then only starting all finds it.
    await this.start(owners.length > 0 ? owners.map((server) => server.name) : undefined);
  }

  problems(): Promise<McpConfigProblem[]> {
    return this.configs().then((loaded) => loaded.problems);
  }

  /**
   * Connects every enabled server and reports each one; `onRow` hears each row as soon as its
   * server is ready or failed (so a slow server does not hold back the others' lines). A
   * failing `required` server is reported like any other here instead of failing the listing.
   */
  async list(onRow?: (row: McpServerRow) => void): Promise<McpServerRow[]> {
    const { servers } = await this.checkedConfigs();
    const hub = this.#hubInstance();
    return Promise.all(
      servers.map(async (server) => {
        const started = hub.status().find((entry) => entry.name === server.name);
        const status = !server.enabled ? undefined : (started ?? (await hub.addServer(server)));
        const row: McpServerRow = {
          name: server.name,
          type: server.type,
          source: server.source.file,
          enabled: server.enabled,
          status: !server.enabled ? 'disabled' : (status?.state ?? 'not-started'),
          tools: status?.tools ?? 0,
          error: status?.error ?? null,
        };
        onRow?.(row);
        return row;
      }),
    );
  }

  /** Connects one server and lists what it offers, timing each step; throws when it cannot connect. */
  async test(name: string): Promise<McpServerTestReport> {
    const config = await this.config(name);
    const hub = this.#hubInstance();
    if (hub.status().some((status) => status.name === name)) await hub.removeServer(name);
    const startedAt = performance.now();
    await hub.start([{ ...config, enabled: true, required: false }]);
    const status = hub.serverStatus(name);
    if (status.state !== 'ready') {
      const tail = status.stderrTail && status.stderrTail.length > 0 ? `\n${status.stderrTail.map((line) => `  ${line}`).join('\n')}` : '';
      throw new WeftError('MCP_SERVER_FAILED', `MCP server '${name}' failed: ${status.error ?? status.state}${tail}`, { data: { status } });
    }
    const connectMs = status.timings.connectMs ?? performance.now() - startedAt;
    const timed = async <T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> => {
      const begin = performance.now();
      const value = await work();
      return { value, ms: performance.now() - begin };
    };
    const tools = this.#deps.registry
      .list()
      .filter((tool) => tool.server === name)
      .map((tool) => ({ name: tool.name, description: tool.description }));
    const resources = await timed(() => hub.listResources(name));
    const prompts = await timed(() => hub.listPrompts(name));
    return {
      name,
      type: config.type,
      serverInfo: status.serverInfo ?? null,
      protocolVersion: status.protocolVersion ?? null,
      connectMs,
      tools,
      resources: { count: resources.value.length, ms: resources.ms, items: resources.value.map((r) => r.uri) },
      prompts: { count: prompts.value.length, ms: prompts.ms, items: prompts.value.map((p) => p.name) },
    };
  }

  /**
   * Runs the OAuth login of a remote server: `openUrl` gets the authorization URL (print it,
   * open a browser); resolves once the redirect came back and the tokens are stored.
   */
  async login(
    name: string,
    openUrl: (url: URL) => void | Promise<void>,
    options: { signal?: AbortSignal; scope?: string } = {},
  ): Promise<McpLoginResult> {
    const config = await this.config(name);
    return loginMcpServer({
      config,
      storageDir: this.#deps.storageDir,
      openUrl,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.scope ? { scope: options.scope } : {}),
    });
  }

  /** Forgets the stored tokens of a server; false when there were none. */
  async logout(name: string): Promise<boolean> {
    await this.config(name);
    return logoutMcpServer(name, this.#deps.storageDir);
  }

  hub(): McpHub | undefined {
    return this.#hub;
  }

  /** Connects a server that is not in the config files (runtime registration). */
  addServer(config: McpServerConfig): Promise<McpServerStatus> {
    return this.#hubInstance().addServer(config);
  }

  /** Disconnects a server added with `addServer`; nothing happens when it is not connected. */
  async removeServer(name: string): Promise<void> {
    if (this.#hub?.status().some((status) => status.name === name)) await this.#hub.removeServer(name);
  }

  /** The registered tool names of each connected server. */
  toolNames(): Map<string, string[]> {
    const names = new Map<string, string[]>();
    for (const tool of this.#deps.registry.list()) {
      if (tool.server === undefined) continue;
      names.set(tool.server, [...(names.get(tool.server) ?? []), tool.name]);
    }
    return names;
  }

  async close(): Promise<void> {
    await this.#hub?.close();
    this.#hub = undefined;
  }

  #load(): Promise<LoadedMcpServerConfigs> {
    this.#loaded ??= loadMcpServerConfigs({
      workspaceRoot: this.#deps.workspaceRoot,
      homeDir: homedir(),
      userSettings: this.#deps.settings.userDocument,
      projectSettings: this.#deps.settings.projectDocument,
      localMcpJson: localMcpJsonFile(this.#deps.storageDir, this.#deps.workspaceRoot),
      env: this.#deps.env,
      logger: this.#deps.logger,
    });
    return this.#loaded;
  }

  #hubInstance(): McpHub {
    this.#hub ??= new McpHub({
      registry: this.#deps.registry,
      workspaceRoot: this.#deps.workspaceRoot,
      env: this.#deps.env,
      logger: this.#deps.logger.child('mcp'),
      clientVersion: this.#deps.clientVersion,
      fastPath: this.#deps.settings.mcpFastPath,
      oauth: { storageDir: this.#deps.storageDir },
      ...(this.#deps.handlers ? { handlers: this.#deps.handlers } : {}),
    });
    return this.#hub;
  }
}
