/**
 * Loads MCP server configs from every source and applies precedence: workflow servers,
 * local scope (this project, this user), project `.weft/settings.toml`, project `.mcp.json`, `.cursor/mcp.json`, user settings.
 * The highest source that has a name owns it whole (fields never merge); problems in
 * one file or entry never stop the others from loading.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { describeJsonError, parseJsonText } from './json-text.js';
import { example, fileContext, fileProblem, isPlainObject, type FileContext, type McpConfigProblem } from './problems.js';
import { resolveServerEntry } from './resolve-entry.js';
import type { McpConfigSource, McpConfigSourceKind, McpServerConfig } from './server-config.js';
import { validateServerEntry } from './validate-entry.js';

/** A settings TOML file already parsed by the settings loader. */
export interface SettingsDocument {
  file: string;
  data: Record<string, unknown>;
}

export interface LoadMcpServerConfigsParams {
  workspaceRoot: string;
  /** The user's home (parent of `~/.weft`): for `~` in `cwd`, `${userHome}` and `~/…` in messages. */
  homeDir: string;
  userSettings?: SettingsDocument;
  projectSettings?: SettingsDocument;
  /** The local scope's `.mcp.json`-shaped file (`localMcpJsonFile`). */
  localMcpJson?: string;
  /** `[run.agent.mcps]` of a workflow file. */
  workflowServers?: { file: string; servers: Record<string, unknown> };
  env: Record<string, string | undefined>;
  logger: Logger;
}

export interface LoadedMcpServerConfigs {
  /** Winning, valid entries (disabled ones included, with `enabled: false`), sorted by name. */
  servers: McpServerConfig[];
  problems: McpConfigProblem[];
}

interface SourceEntries {
  kind: McpConfigSourceKind;
  ctx: FileContext;
  servers: Record<string, unknown>;
}

export const PROJECT_MCP_JSON = '.mcp.json';
export const CURSOR_MCP_JSON = path.join('.cursor', 'mcp.json');

/** Reads `{"mcpServers": {...}}`; an absent file is no source, an unreadable or invalid one a problem. */
export async function readMcpJsonFile(
  file: string,
  ctx: FileContext,
  problems: McpConfigProblem[],
): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    problems.push(
      fileProblem(ctx, `cannot be read (${errorMessage(error)})`, 'check that it is a readable file; its servers were skipped'),
    );
    return undefined;
  }
  if (text.trim() === '') return undefined;
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    problems.push(fileProblem(ctx, `is not valid JSON (${describeJsonError(parsed)})`, 'fix the syntax; its servers were skipped'));
    return undefined;
  }
  if (!isPlainObject(parsed.value)) {
    problems.push(fileProblem(ctx, 'must contain a JSON object', 'write {"mcpServers": {…}}; its servers were skipped'));
    return undefined;
  }
  const servers = parsed.value.mcpServers;
  if (servers === undefined) return undefined;
  if (!isPlainObject(servers)) {
    problems.push({
      ...fileProblem(ctx, `field 'mcpServers' must be an object of servers`, 'write "mcpServers": {"name": {…}}; its servers were skipped'),
      field: 'mcpServers',
    });
    return undefined;
  }
  return servers;
}

/** `data.mcp.servers` of a settings document, with problems for wrong shapes. */
function settingsServers(doc: SettingsDocument, ctx: FileContext, problems: McpConfigProblem[]): Record<string, unknown> | undefined {
  const mcp = doc.data.mcp;
  if (mcp === undefined) return undefined;
  const fix = `define servers as tables, e.g. [mcp.servers.github] with ${example('toml', 'command', ['npx', '-y', 'some-mcp-server'])}`;
  if (!isPlainObject(mcp)) {
    problems.push({ ...fileProblem(ctx, `'mcp' must be a table`, fix), field: 'mcp' });
    return undefined;
  }
  if (mcp.servers === undefined) return undefined;
  if (!isPlainObject(mcp.servers)) {
    problems.push({ ...fileProblem(ctx, `'mcp.servers' must be a table`, fix), field: 'mcp.servers' });
    return undefined;
  }
  return mcp.servers;
}

async function collectSources(params: LoadMcpServerConfigsParams, problems: McpConfigProblem[]): Promise<SourceEntries[]> {
  const { workspaceRoot, homeDir } = params;
  const sources: SourceEntries[] = [];
  const settings = (kind: McpConfigSourceKind, doc: SettingsDocument | undefined): void => {
    if (!doc) return;
    const ctx = fileContext(doc.file, 'toml', workspaceRoot, homeDir);
    const servers = settingsServers(doc, ctx, problems);
    if (servers) sources.push({ kind, ctx, servers });
  };
  if (params.workflowServers) {
    const ctx = fileContext(params.workflowServers.file, 'toml', workspaceRoot, homeDir);
    if (isPlainObject(params.workflowServers.servers)) sources.push({ kind: 'workflow', ctx, servers: params.workflowServers.servers });
    else problems.push(fileProblem(ctx, `'run.agent.mcps' must be a table of servers`, 'write [run.agent.mcps.<name>] tables'));
  }
  const jsonFiles: [McpConfigSourceKind, string][] = [
    ['project-mcp-json', path.join(workspaceRoot, PROJECT_MCP_JSON)],
    ['cursor-mcp-json', path.join(workspaceRoot, CURSOR_MCP_JSON)],
  ];
  if (params.localMcpJson) await readJsonSource('local-mcp-json', params.localMcpJson);
  settings('project-settings', params.projectSettings);
  for (const [kind, file] of jsonFiles) await readJsonSource(kind, file);
  settings('user-settings', params.userSettings);
  return sources;

  async function readJsonSource(kind: McpConfigSourceKind, file: string): Promise<void> {
    const ctx = fileContext(file, 'json', workspaceRoot, homeDir);
    const servers = await readMcpJsonFile(file, ctx, problems);
    if (servers) sources.push({ kind, ctx, servers });
  }
}

/**
 * Validates and resolves one entry outside the files (e.g. `POST /api/v1/mcp/servers`,
 * source kind `runtime`), with the same rules and interpolation as loading.
 */
export function resolveServerConfig(params: {
  name: string;
  entry: unknown;
  source: McpConfigSource;
  format: 'json' | 'toml';
  workspaceRoot: string;
  homeDir: string;
  env: Record<string, string | undefined>;
  logger: Logger;
}): { config?: McpServerConfig; problems: McpConfigProblem[] } {
  const ctx = fileContext(params.source.file, params.format, params.workspaceRoot, params.homeDir);
  const validated = validateServerEntry(ctx, params.name, params.entry);
  if (!validated.entry) return { problems: validated.problems };
  const resolved = resolveServerEntry(ctx, params.source, validated.entry, params);
  return { config: resolved.config, problems: [...validated.problems, ...resolved.problems] };
}

/**
 * Loads every configured server. A server named in several sources comes from the highest
 * one, whole. When that winning entry is invalid the server is left out (reported), rather
 * than silently falling back to a lower source the user meant to override.
 */
export async function loadMcpServerConfigs(params: LoadMcpServerConfigsParams): Promise<LoadedMcpServerConfigs> {
  const problems: McpConfigProblem[] = [];
  const sources = await collectSources(params, problems);
  const owners = new Map<string, McpConfigSource>();
  const servers: McpServerConfig[] = [];
  const scope = { env: params.env, workspaceRoot: params.workspaceRoot, homeDir: params.homeDir, logger: params.logger };

  for (const { kind, ctx, servers: entries } of sources) {
    for (const [name, raw] of Object.entries(entries)) {
      const validated = validateServerEntry(ctx, name, raw);
      problems.push(...validated.problems);
      // Fields weft ignores are warnings: nobody would see them if they were only returned.
      for (const problem of validated.problems) {
        if (problem.severity === 'warning') params.logger.warn(problem.message);
      }
      const owner = owners.get(name);
      if (owner) {
        params.logger.debug(`MCP server '${name}' in ${ctx.display} is overridden by ${owner.file}`, { server: name });
        continue;
      }
      const source: McpConfigSource = { kind, file: ctx.file };
      owners.set(name, source);
      if (!validated.entry) continue;
      const resolved = resolveServerEntry(ctx, source, validated.entry, scope);
      problems.push(...resolved.problems);
      if (resolved.config) servers.push(resolved.config);
    }
  }
  servers.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { servers, problems };
}
