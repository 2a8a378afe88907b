/**
 * Qualified names of MCP tools: `mcp__<server>__<tool>`, sanitised to `[A-Za-z0-9_-]`,
 * shortened deterministically past 64 characters, and the reverse map back to the
 * server's own tool name. Pure functions; no I/O.
 */
import { createHash } from 'node:crypto';
import type { McpServerConfig } from '../config/server-config.js';
import { isToolAllowed } from '../config/tool-filter.js';

/** The longest tool name several model providers accept. */
export const MAX_TOOL_NAME_LENGTH = 64;

const PREFIX = 'mcp__';
const SEPARATOR = '__';
const HASH_LENGTH = 8;
const UNSAFE = /[^A-Za-z0-9_-]/g;

export function sanitizeNamePart(part: string): string {
  return part.replace(UNSAFE, '_');
}

/**
 * `mcp__<server>__<tool>` with unsafe characters replaced. Longer names keep a prefix and
 * end in `_` plus 8 hex characters of the SHA-256 of the full sanitised name, so they are
 * stable across restarts and distinct from each other.
 */
export function qualifiedToolName(server: string, tool: string): string {
  const full = `${PREFIX}${sanitizeNamePart(server)}${SEPARATOR}${sanitizeNamePart(tool)}`;
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, HASH_LENGTH);
  return `${full.slice(0, MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}

export interface NamedTool<T> {
  /** The qualified name weft registers. */
  qualifiedName: string;
  /** The name the server knows the tool by; calls use this one. */
  originalName: string;
  tool: T;
}

export interface ToolNaming<T> {
  named: NamedTool<T>[];
  /** Tools left out, each with the reason (collision), for a warning. */
  dropped: { originalName: string; reason: string }[];
}

/**
 * Names a server's tools in listing order. When two tools end up with the same qualified
 * name, the first keeps it and the second is dropped.
 */
export function nameServerTools<T extends { name: string }>(server: string, tools: readonly T[]): ToolNaming<T> {
  const byName = new Map<string, NamedTool<T>>();
  const dropped: ToolNaming<T>['dropped'] = [];
  for (const tool of tools) {
    const qualifiedName = qualifiedToolName(server, tool.name);
    const first = byName.get(qualifiedName);
    if (first) {
      dropped.push({
        originalName: tool.name,
        reason: `'${tool.name}' and '${first.originalName}' both become '${qualifiedName}'; keeping '${first.originalName}'`,
      });
      continue;
    }
    byName.set(qualifiedName, { qualifiedName, originalName: tool.name, tool });
  }
  return { named: [...byName.values()], dropped };
}

/** Characters that make a tool pattern (picomatch) a glob rather than a literal name. */
const GLOB_CHARACTERS = /[*?[\]{}()!+@]/;

/**
 * Whether a tool name or glob pattern (a tool stage's `tool`, an agent's `tools` entry) can
 * name a tool of `server` — decided from the name alone, before the server has listed its
 * tools. Errs towards yes: a server whose prefix does not survive shortening always can.
 */
export function toolPatternMayName(pattern: string, server: string): boolean {
  const prefix = `${PREFIX}${sanitizeNamePart(server)}${SEPARATOR}`;
  if (prefix.length > MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1) return true;
  const literal = pattern.split(GLOB_CHARACTERS, 1)[0] ?? '';
  if (literal.length === pattern.length) return pattern.startsWith(prefix);
  return prefix.startsWith(literal) || literal.startsWith(prefix);
}

/**
 * Applies `enabled_tools` (allow-list, when given) and then `disabled_tools` (deny-list).
 * Both name the server's original tool names.
 */
export function filterTools<T extends { name: string }>(
  tools: readonly T[],
  filters: Pick<McpServerConfig, 'enabledTools' | 'disabledTools'>,
): T[] {
  return tools.filter((tool) => isToolAllowed(filters, tool.name));
}

/** Prefixes a description with `[<server>] `, so the model can tell whose tool it is. */
export function describeTool(server: string, description: string | undefined): string {
  const text = description?.trim() ?? '';
  return text ? `[${server}] ${text}` : `[${server}]`;
}
