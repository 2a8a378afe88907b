/**
 * Runtime registration of MCP servers (spec §3.8), the service behind
 * `GET/POST/DELETE /api/v1/mcp/servers`. A server added here is validated like a
 * `.mcp.json` entry, kept in the store's MCP server catalogue — which every runner
 * follows, so agent stages already running get its tools on their next turn
 * (`runtime-mcp-follower.ts`) — and started at once in this process's hub, so its status
 * and tools show. The configured servers (settings, `.mcp.json`) are listed beside them.
 */
import { WeftError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { MCP_SERVER_NAME, resolveServerConfig, type McpServerConfig } from '../../mcp/config/index.js';
import type { McpServerStatus } from '../../mcp/hub/index.js';
import type { JsonObject } from '../../runs/model/json.js';
import type { RunStore } from '../../runs/store/run-store.js';
import type { McpConfigService } from './mcp-config-service.js';
import type { McpService } from './mcp-service.js';

/** What a catalogue entry's problems and the hub's status name as the entry's source. */
export const RUNTIME_SOURCE_LABEL = 'runtime registration';

export interface McpServerView {
  name: string;
  transport: McpServerConfig['type'];
  /** The config file the server comes from, or `runtime` for servers added through the API. */
  source: string;
  status: McpServerStatus['state'] | 'disabled' | 'not-started';
  tools: number;
  tool_names: string[];
  error: string | null;
}

export interface McpRegistryDeps {
  store: RunStore;
  mcp: McpService;
  mcpConfig: McpConfigService;
  workspaceRoot: string;
  homeDir: string;
  env: Record<string, string | undefined>;
  logger: Logger;
}

/** A catalogue entry as a server config; CONFIG_INVALID naming every problem when it is not valid. */
export function runtimeServerConfig(
  name: string,
  entry: JsonObject,
  scope: Pick<McpRegistryDeps, 'workspaceRoot' | 'homeDir' | 'env' | 'logger'>,
): McpServerConfig {
  const { config, problems } = resolveServerConfig({
    name,
    entry,
    source: { kind: 'runtime', file: RUNTIME_SOURCE_LABEL },
    format: 'json',
    ...scope,
  });
  const errors = problems.filter((problem) => problem.severity === 'error');
  if (!config || errors.length > 0)
    throw new WeftError('CONFIG_INVALID', (errors.length > 0 ? errors : problems).map((problem) => problem.message).join('\n'), {
      data: { server: name },
    });
  return config;
}

export class McpRegistry {
  readonly #deps: McpRegistryDeps;
  #restored: Promise<void> | undefined;

  constructor(deps: McpRegistryDeps) {
    this.#deps = deps;
  }

  /** Every server: the configured ones and the runtime ones, each with its status in this process. */
  async list(): Promise<McpServerView[]> {
    await this.#restore();
    const configured = await this.#deps.mcp.list();
    const runtime = new Set((await this.#deps.store.listMcpServers()).map((entry) => entry.name));
    const hub = this.#deps.mcp.hub();
    const statuses = new Map((hub?.status() ?? []).map((status) => [status.name, status]));
    const tools = this.#deps.mcp.toolNames();
    const views: McpServerView[] = configured
      .filter((row) => !runtime.has(row.name))
      .map((row) => ({
        name: row.name,
        transport: row.type,
        source: row.source,
        status: row.status,
        tools: row.tools,
        tool_names: tools.get(row.name) ?? [],
        error: row.error,
      }));
    for (const name of runtime) {
      const status = statuses.get(name);
      views.push({
        name,
        transport: status?.type ?? 'stdio',
        source: 'runtime',
        status: status?.state ?? 'not-started',
        tools: status?.tools ?? 0,
        tool_names: tools.get(name) ?? [],
        error: status?.error ?? null,
      });
    }
    return views.sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Adds a server: `entry` is a `.mcp.json` entry (`command`/`args`/`env` or `url`/`headers`).
   * Taken names are refused (MCP_SERVER_EXISTS) before anything is stored; `persist` also
   * writes it to the workspace's `.mcp.json`.
   */
  async add(name: string, entry: JsonObject, options: { persist?: boolean } = {}): Promise<McpServerView> {
    if (!MCP_SERVER_NAME.test(name))
      throw new WeftError('CONFIG_INVALID', `MCP server name '${name.slice(0, 80)}' is invalid: use only letters, digits, '_' and '-'.`, {
        data: { server: name },
      });
    const config = runtimeServerConfig(name, entry, this.#deps);
    await this.#restore();
    const { servers } = await this.#deps.mcp.configs();
    const configured = servers.find((server) => server.name === name);
    if (configured)
      throw new WeftError('MCP_SERVER_EXISTS', `An MCP server named '${name}' is already configured in ${configured.source.file}.`, {
        data: { server: name },
      });
    if ((await this.#deps.store.listMcpServers()).some((server) => server.name === name))
      throw new WeftError('MCP_SERVER_EXISTS', `An MCP server named '${name}' was already added at runtime.`, { data: { server: name } });
    if (options.persist) await this.#deps.mcpConfig.addJson(name, JSON.stringify(entry), 'project');
    await this.#deps.store.putMcpServer(name, entry);
    await this.#deps.mcp.addServer(config);
    return (await this.list()).find((view) => view.name === name)!;
  }

  /** Removes a server added at runtime (and its `.mcp.json` entry when it was persisted). */
  async remove(name: string): Promise<void> {
    const removed = await this.#deps.store.deleteMcpServer(name);
    if (!removed) {
      const { servers } = await this.#deps.mcp.configs();
      const configured = servers.find((server) => server.name === name);
      if (configured)
        throw new WeftError(
          'CONFIG_INVALID',
          `MCP server '${name}' comes from ${configured.source.file}, not from runtime registration; remove it there ('weft mcp remove ${name}').`,
          { data: { server: name } },
        );
      throw new WeftError('MCP_SERVER_NOT_FOUND', `No MCP server named '${name}' was added at runtime.`, { data: { server: name } });
    }
    await this.#deps.mcp.removeServer(name);
    await this.#deps.mcpConfig.remove(name, 'project').catch(() => undefined);
  }

  /** Servers added by an earlier `weft serve` are in the catalogue: connect them here too, once. */
  #restore(): Promise<void> {
    this.#restored ??= (async () => {
      for (const entry of await this.#deps.store.listMcpServers()) {
        try {
          await this.#deps.mcp.addServer(runtimeServerConfig(entry.name, entry.config, this.#deps));
        } catch (error) {
          this.#deps.logger.warn(`runtime MCP server '${entry.name}': ${(error as Error).message}`);
        }
      }
    })();
    return this.#restored;
  }
}
