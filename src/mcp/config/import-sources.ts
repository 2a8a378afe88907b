/**
 * The MCP servers other clients configured for this user, as `.mcp.json`-shaped entries, for
 * `weft mcp import codex|claude|cursor`: Codex's `[mcp_servers.*]` in `$CODEX_HOME/config.toml`
 * (default `~/.codex`), Claude Code's `mcpServers` in `~/.claude.json` (user scope, then this
 * project's local scope), Cursor's `~/.cursor/mcp.json`. Project files (`.mcp.json`,
 * `.cursor/mcp.json`) need no import: weft reads them already.
 */
import path from 'node:path';
import { parse } from 'smol-toml';
import { WeftError } from '../../core/errors.js';
import { parseJsonText } from './json-text.js';
import { isPlainObject } from './problems.js';
import { readOptionalFile } from './write-file.js';

export const IMPORT_SOURCES = ['codex', 'claude', 'cursor'] as const;
export type McpImportSource = (typeof IMPORT_SOURCES)[number];

export interface ImportableServers {
  file: string;
  servers: Record<string, Record<string, unknown>>;
}

export interface ImportLocation {
  homeDir: string;
  workspaceRoot: string;
  env: Record<string, string | undefined>;
}

export function isImportSource(value: string): value is McpImportSource {
  return (IMPORT_SOURCES as readonly string[]).includes(value);
}

/** Reads the servers of one client's config; a missing file is an error naming where weft looked. */
export async function readImportableServers(source: McpImportSource, where: ImportLocation): Promise<ImportableServers> {
  switch (source) {
    case 'codex': {
      const file = path.join(where.env.CODEX_HOME ?? path.join(where.homeDir, '.codex'), 'config.toml');
      const data = parseFile(file, await required(file, source), (text) => parse(text) as Record<string, unknown>);
      return { file, servers: mapTables(data.mcp_servers, codexEntry) };
    }
    case 'claude': {
      const file = path.join(where.homeDir, '.claude.json');
      const data = parseFile(file, await required(file, source), jsonObject);
      const projects = isPlainObject(data.projects) ? data.projects : {};
      const project = projects[path.resolve(where.workspaceRoot)];
      const local = isPlainObject(project) ? mapTables(project.mcpServers, (entry) => entry) : {};
      return { file, servers: { ...mapTables(data.mcpServers, (entry) => entry), ...local } };
    }
    case 'cursor': {
      const file = path.join(where.homeDir, '.cursor', 'mcp.json');
      return { file, servers: mapTables(parseFile(file, await required(file, source), jsonObject).mcpServers, (entry) => entry) };
    }
    default: {
      const unknown: never = source;
      throw new WeftError('USAGE', `Unknown import source '${String(unknown)}'.`);
    }
  }
}

async function required(file: string, source: McpImportSource): Promise<string> {
  const text = await readOptionalFile(file);
  if (text === undefined) throw new WeftError('FILE_NOT_FOUND', `No ${source} config at ${file}: nothing to import.`);
  return text;
}

function parseFile(file: string, text: string, parseText: (text: string) => Record<string, unknown>): Record<string, unknown> {
  try {
    return parseText(text);
  } catch (error) {
    throw new WeftError(
      'CONFIG_INVALID',
      `${file} cannot be read: ${error instanceof Error ? error.message.split('\n', 1)[0] : String(error)}. Fix it, then import again.`,
    );
  }
}

function jsonObject(text: string): Record<string, unknown> {
  const parsed = parseJsonText(text);
  if (!parsed.ok || !isPlainObject(parsed.value)) throw new Error('not a JSON object');
  return parsed.value;
}

function mapTables(
  tables: unknown,
  convert: (entry: Record<string, unknown>) => Record<string, unknown>,
): Record<string, Record<string, unknown>> {
  if (!isPlainObject(tables)) return {};
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, entry] of Object.entries(tables)) if (isPlainObject(entry)) out[name] = convert(entry);
  return out;
}

/** Codex names headers `http_headers` and takes header values from variables in `env_http_headers`. */
function codexEntry(entry: Record<string, unknown>): Record<string, unknown> {
  const { http_headers: headers, env_http_headers: envHeaders, ...rest } = entry;
  const fromEnv = isPlainObject(envHeaders)
    ? Object.fromEntries(Object.entries(envHeaders).map(([name, variable]) => [name, `\${${String(variable)}}`]))
    : {};
  const merged = { ...(isPlainObject(headers) ? headers : {}), ...fromEnv };
  return {
    ...(typeof rest.url === 'string' && rest.type === undefined ? { type: 'http' } : {}),
    ...rest,
    ...(Object.keys(merged).length > 0 ? { headers: merged } : {}),
  };
}
