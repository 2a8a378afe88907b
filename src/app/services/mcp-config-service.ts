/**
 * Adding and removing MCP server entries for `weft mcp add | add-json | remove`: project
 * scope writes `.mcp.json` (the file other MCP clients share), local scope (this project,
 * this user) the same shape under the storage dir (`localMcpJsonFile`), user scope the
 * user settings TOML. The rest of either file is kept as it was.
 */
import { homedir } from 'node:os';
import { WeftError } from '../../core/errors.js';
import { userSettingsFile } from '../../core/settings/settings.js';
import type { McpConfigProblem } from '../../mcp/config/index.js';
import {
  addServerToProjectMcpJson,
  addServerToUserSettings,
  localMcpJsonFile,
  mcpJsonEntryToToml,
  parseMcpAddJson,
  readImportableServers,
  type McpImportSource,
  removeServerFromProjectMcpJson,
  removeServerFromUserSettings,
} from '../../mcp/config/index.js';

export type McpScope = 'local' | 'project' | 'user';

export interface McpAddParams {
  name: string;
  scope: McpScope;
  /** stdio: executable then arguments. */
  command?: string[];
  env?: Record<string, string>;
  /** http/sse. */
  url?: string;
  transport?: 'http' | 'sse';
  headers?: Record<string, string>;
  replace?: boolean;
}

export interface McpAddResult {
  file: string;
  replaced: boolean;
  warnings: McpConfigProblem[];
}

export interface McpImportRow {
  name: string;
  outcome: 'added' | 'replaced' | 'skipped';
  /** Where it was written; null when skipped. */
  file: string | null;
  /** Why it was skipped (already there, invalid); null otherwise. */
  reason: string | null;
}

export interface McpImportResult {
  /** The other client's config file read. */
  from: string;
  servers: McpImportRow[];
}

export class McpConfigService {
  constructor(
    private readonly workspaceRoot: string,
    private readonly storageDir: string,
    private readonly env: Record<string, string | undefined> = process.env,
  ) {}

  add(params: McpAddParams): Promise<McpAddResult> {
    if ((params.command === undefined || params.command.length === 0) === (params.url === undefined)) {
      throw new WeftError(
        'USAGE',
        `Give either a command after '--' (weft mcp add ${params.name} -- npx -y some-server) or --url <url>, not both.`,
      );
    }
    const entry: Record<string, unknown> =
      params.url !== undefined
        ? {
            type: params.transport ?? 'http',
            url: params.url,
            ...(params.headers && Object.keys(params.headers).length > 0 ? { headers: params.headers } : {}),
          }
        : {
            command: params.command![0],
            ...(params.command!.length > 1 ? { args: params.command!.slice(1) } : {}),
            ...(params.env && Object.keys(params.env).length > 0 ? { env: params.env } : {}),
          };
    return this.#write(params.name, params.scope, entry, params.replace ?? false);
  }

  addJson(name: string, json: string, scope: McpScope, replace = false): Promise<McpAddResult> {
    const { entry, warnings } = parseMcpAddJson(name, json);
    return this.#write(name, scope, entry, replace).then((result) => ({ ...result, warnings: [...warnings, ...result.warnings] }));
  }

  /**
   * Copies every server of another client's config into `scope`. A name already there is
   * skipped (with the reason) unless `replace`; one bad entry does not stop the others.
   */
  async import(source: McpImportSource, scope: McpScope, replace = false): Promise<McpImportResult> {
    const found = await readImportableServers(source, { homeDir: homedir(), workspaceRoot: this.workspaceRoot, env: this.env });
    const servers: McpImportRow[] = [];
    for (const [name, entry] of Object.entries(found.servers)) {
      try {
        const result = await this.#write(name, scope, entry, replace);
        servers.push({ name, outcome: result.replaced ? 'replaced' : 'added', file: result.file, reason: null });
      } catch (error) {
        if (!(error instanceof WeftError)) throw error;
        servers.push({ name, outcome: 'skipped', file: null, reason: error.message });
      }
    }
    return { from: found.file, servers };
  }

  /** Removes from the given scope, or from the first scope (local, project, then user) that has it. */
  async remove(name: string, scope?: McpScope): Promise<{ file: string; scope: McpScope }> {
    const scopes: McpScope[] = scope ? [scope] : ['local', 'project', 'user'];
    for (const candidate of scopes) {
      const result =
        candidate === 'user'
          ? await removeServerFromUserSettings(userSettingsFile(this.storageDir), name, { homeDir: homedir() })
          : await removeServerFromProjectMcpJson(this.workspaceRoot, name, this.#jsonFile(candidate));
      if (result.removed) return { file: result.file, scope: candidate };
    }
    const files = scopes.map((candidate) =>
      candidate === 'project'
        ? '.mcp.json'
        : candidate === 'local'
          ? localMcpJsonFile(this.storageDir, this.workspaceRoot)
          : userSettingsFile(this.storageDir),
    );
    throw new WeftError(
      'MCP_SERVER_NOT_FOUND',
      `No MCP server named '${name}' in ${files.join(' or ')}. Run 'weft mcp list' to see where each server is defined.`,
    );
  }

  #write(name: string, scope: McpScope, entry: Record<string, unknown>, replace: boolean): Promise<McpAddResult> {
    if (scope === 'user')
      return addServerToUserSettings(userSettingsFile(this.storageDir), name, mcpJsonEntryToToml(entry), { replace, homeDir: homedir() });
    return addServerToProjectMcpJson(this.workspaceRoot, name, entry, { replace, ...this.#jsonFile(scope) });
  }

  #jsonFile(scope: 'local' | 'project'): { file?: string } {
    return scope === 'local' ? { file: localMcpJsonFile(this.storageDir, this.workspaceRoot) } : {};
  }
}
