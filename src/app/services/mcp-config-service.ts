/**
 * Adding and removing MCP server entries for `weft mcp add | add-json | remove`: project
 * scope writes `.mcp.json` (the file other MCP clients share), user scope writes the
 * user settings TOML. The rest of either file is kept as it was.
 */
import { homedir } from 'node:os';
import { WeftError } from '../../core/errors.js';
import { userSettingsFile } from '../../core/settings/settings.js';
import type { McpConfigProblem } from '../../mcp/config/index.js';
import {
  addServerToProjectMcpJson,
  addServerToUserSettings,
  mcpJsonEntryToToml,
  parseMcpAddJson,
  removeServerFromProjectMcpJson,
  removeServerFromUserSettings,
} from '../../mcp/config/index.js';

export type McpScope = 'project' | 'user';

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

export class McpConfigService {
  constructor(
    private readonly workspaceRoot: string,
    private readonly storageDir: string,
  ) {}

  add(params: McpAddParams): Promise<McpAddResult> {
    if ((params.command === undefined || params.command.length === 0) === (params.url === undefined)) {
      throw new WeftError('USAGE', `Give either a command after '--' (weft mcp add ${params.name} -- npx -y some-server) or --url <url>, not both.`);
    }
    const entry: Record<string, unknown> = params.url !== undefined
      ? { type: params.transport ?? 'http', url: params.url, ...(params.headers && Object.keys(params.headers).length > 0 ? { headers: params.headers } : {}) }
      : { command: params.command![0], ...(params.command!.length > 1 ? { args: params.command!.slice(1) } : {}), ...(params.env && Object.keys(params.env).length > 0 ? { env: params.env } : {}) };
    return this.#write(params.name, params.scope, entry, params.replace ?? false);
  }

  addJson(name: string, json: string, scope: McpScope, replace = false): Promise<McpAddResult> {
    const { entry, warnings } = parseMcpAddJson(name, json);
    return this.#write(name, scope, entry, replace).then((result) => ({ ...result, warnings: [...warnings, ...result.warnings] }));
  }

  /** Removes from the given scope, or from the first scope (project, then user) that has it. */
  async remove(name: string, scope?: McpScope): Promise<{ file: string; scope: McpScope }> {
    const scopes: McpScope[] = scope ? [scope] : ['project', 'user'];
    for (const candidate of scopes) {
      const result = candidate === 'project'
        ? await removeServerFromProjectMcpJson(this.workspaceRoot, name)
        : await removeServerFromUserSettings(userSettingsFile(this.storageDir), name, { homeDir: homedir() });
      if (result.removed) return { file: result.file, scope: candidate };
    }
    throw new WeftError('MCP_SERVER_NOT_FOUND', `No MCP server named '${name}' in ${scopes.map((s) => (s === 'project' ? '.mcp.json' : userSettingsFile(this.storageDir))).join(' or ')}. Run 'weft mcp list' to see where each server is defined.`);
  }

  #write(name: string, scope: McpScope, entry: Record<string, unknown>, replace: boolean): Promise<McpAddResult> {
    if (scope === 'project') return addServerToProjectMcpJson(this.workspaceRoot, name, entry, { replace });
    return addServerToUserSettings(userSettingsFile(this.storageDir), name, mcpJsonEntryToToml(entry), { replace, homeDir: homedir() });
  }
}
