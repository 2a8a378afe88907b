/**
 * `weft mcp add/remove` for project `.mcp.json`: adds, replaces or removes one server by
 * editing only that member's text, so every other key and server, the file's own
 * formatting (indentation, inline arrays) and its trailing newline stay exactly as they were.
 */
import path from 'node:path';
import { WeftError } from '../../core/errors.js';
import { PROJECT_MCP_JSON } from './load-configs.js';
import {
  describeJsonError,
  detectIndent,
  lineIndent,
  parseJsonText,
  scanObject,
  skipWhitespace,
  type JsonObjectSpan,
} from './json-text.js';
import { fileContext, fileProblem, hasErrors, isPlainObject, problemsError, type FileContext, type McpConfigProblem } from './problems.js';
import { checkServerName, validateServerEntry } from './validate-entry.js';
import { readOptionalFile, writeFileAtomic } from './write-file.js';

export interface McpJsonAddResult {
  file: string;
  replaced: boolean;
  /** Warnings about the entry (e.g. fields weft ignores); nothing blocking. */
  warnings: McpConfigProblem[];
}

/** Validates a server entry in `.mcp.json` shape; throws `CONFIG_INVALID` on any error. */
export function checkMcpJsonEntry(
  ctx: FileContext,
  name: string,
  entry: Record<string, unknown>,
): { entry: Record<string, unknown>; warnings: McpConfigProblem[] } {
  const nameProblem = checkServerName(ctx, name);
  if (nameProblem) throw problemsError([nameProblem]);
  const cleaned = Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined));
  const { problems } = validateServerEntry(ctx, name, cleaned);
  if (hasErrors(problems)) throw problemsError(problems);
  return { entry: cleaned, warnings: problems };
}

interface ParsedFile {
  root: JsonObjectSpan;
  servers?: JsonObjectSpan;
  unit: string;
  compact: boolean;
}

function parseFile(ctx: FileContext, text: string, action: string): ParsedFile {
  const parsed = parseJsonText(text);
  if (!parsed.ok)
    throw problemsError([
      fileProblem(ctx, `is not valid JSON (${describeJsonError(parsed)})`, `fix it before ${action}; nothing was written`),
    ]);
  if (!isPlainObject(parsed.value))
    throw problemsError([fileProblem(ctx, 'must contain a JSON object', `fix it before ${action}; nothing was written`)]);
  const root = scanObject(text, skipWhitespace(text, 0));
  const member = root.members.filter((item) => item.key === 'mcpServers').at(-1);
  if (member && !isPlainObject(parsed.value.mcpServers)) {
    throw problemsError([
      { ...fileProblem(ctx, `field 'mcpServers' must be an object`, `fix it before ${action}; nothing was written`), field: 'mcpServers' },
    ]);
  }
  const servers = member ? scanObject(text, member.valueStart) : undefined;
  return { root, servers, unit: detectIndent(text), compact: !text.slice(root.start, root.end).includes('\n') };
}

function splice(text: string, start: number, end: number, insert: string): string {
  return text.slice(0, start) + insert + text.slice(end);
}

function serialize(value: unknown, unit: string, indent: string, compact: boolean): string {
  return compact ? JSON.stringify(value) : JSON.stringify(value, null, unit).replace(/\n/g, `\n${indent}`);
}

/** The new text of a `.mcp.json` with `name` added (or replaced when `replace`). */
export function addServerToMcpJsonText(
  text: string | undefined,
  ctx: FileContext,
  name: string,
  entry: Record<string, unknown>,
  options: { replace?: boolean } = {},
): { text: string; replaced: boolean; warnings: McpConfigProblem[] } {
  const checked = checkMcpJsonEntry(ctx, name, entry);
  const key = JSON.stringify(name);
  if (text === undefined || text.trim() === '') {
    const body = serialize(checked.entry, '  ', '    ', false);
    return { text: `{\n  "mcpServers": {\n    ${key}: ${body}\n  }\n}\n`, replaced: false, warnings: checked.warnings };
  }
  const { root, servers, unit, compact } = parseFile(ctx, text, 'adding a server');
  const colon = compact ? ':' : ': ';
  if (!servers) {
    const first = root.members[0];
    const inner = (first && lineIndent(text, first.keyStart)) ?? unit;
    const block = compact
      ? `"mcpServers":{${key}:${serialize(checked.entry, unit, '', true)}}`
      : `"mcpServers": {\n${inner}${unit}${key}: ${serialize(checked.entry, unit, inner + unit, false)}\n${inner}}`;
    const last = root.members.at(-1);
    if (last)
      return {
        text: splice(text, last.valueEnd, last.valueEnd, compact ? `,${block}` : `,\n${inner}${block}`),
        replaced: false,
        warnings: checked.warnings,
      };
    return {
      text: splice(text, root.start, root.end, compact ? `{${block}}` : `{\n${inner}${block}\n}`),
      replaced: false,
      warnings: checked.warnings,
    };
  }
  const existing = servers.members.filter((member) => member.key === name);
  if (existing.length > 0 && !options.replace) {
    throw problemsError([
      fileProblem(ctx, `server '${name}' already exists`, `choose another name, or remove it first with \`weft mcp remove ${name}\``),
    ]);
  }
  const target = existing.at(-1);
  if (target) {
    const indent = lineIndent(text, target.keyStart) ?? '';
    return {
      text: splice(text, target.valueStart, target.valueEnd, serialize(checked.entry, unit, indent, compact)),
      replaced: true,
      warnings: checked.warnings,
    };
  }
  const serversKey = root.members.filter((member) => member.key === 'mcpServers').at(-1)!;
  const outer = lineIndent(text, serversKey.keyStart) ?? '';
  const first = servers.members[0];
  const indent = (first && lineIndent(text, first.keyStart)) ?? outer + unit;
  const member = `${key}${colon}${serialize(checked.entry, unit, indent, compact)}`;
  const last = servers.members.at(-1);
  if (last)
    return {
      text: splice(text, last.valueEnd, last.valueEnd, compact ? `,${member}` : `,\n${indent}${member}`),
      replaced: false,
      warnings: checked.warnings,
    };
  const emptied = compact ? `{${member}}` : `{\n${indent}${member}\n${outer}}`;
  return { text: splice(text, servers.start, servers.end, emptied), replaced: false, warnings: checked.warnings };
}

/** The new text of a `.mcp.json` without `name`; `removed` is false when it was not there. */
export function removeServerFromMcpJsonText(text: string, ctx: FileContext, name: string): { text: string; removed: boolean } {
  let current = text;
  let removed = false;
  for (;;) {
    const { servers } = parseFile(ctx, current, 'removing a server');
    if (!servers) return { text: current, removed };
    const index = servers.members.findIndex((member) => member.key === name);
    if (index < 0) return { text: current, removed };
    const members = servers.members;
    const member = members[index]!;
    const next = members[index + 1];
    const previous = members[index - 1];
    if (next) current = splice(current, member.keyStart, next.keyStart, '');
    else if (previous) current = splice(current, previous.valueEnd, member.valueEnd, '');
    else current = splice(current, servers.start + 1, servers.end - 1, '');
    removed = true;
  }
}

/** `file` overrides `<workspaceRoot>/.mcp.json` (the local scope's file, same shape). */
function projectFile(workspaceRoot: string, override?: string): { file: string; ctx: FileContext } {
  const file = override ?? path.join(workspaceRoot, PROJECT_MCP_JSON);
  return { file, ctx: fileContext(file, 'json', workspaceRoot) };
}

/**
 * Adds a server (Claude Code's entry shape) to `<workspaceRoot>/.mcp.json`, creating the
 * file when absent. A name already in the file is an error unless `replace` is set.
 */
export async function addServerToProjectMcpJson(
  workspaceRoot: string,
  name: string,
  entry: Record<string, unknown>,
  options: { replace?: boolean; file?: string } = {},
): Promise<McpJsonAddResult> {
  const { file, ctx } = projectFile(workspaceRoot, options.file);
  const result = addServerToMcpJsonText(await readOptionalFile(file), ctx, name, entry, options);
  await writeFileAtomic(file, result.text);
  return { file, replaced: result.replaced, warnings: result.warnings };
}

/** Removes a server from `<workspaceRoot>/.mcp.json`; `removed` is false when it was not there. */
export async function removeServerFromProjectMcpJson(
  workspaceRoot: string,
  name: string,
  options: { file?: string } = {},
): Promise<{ file: string; removed: boolean }> {
  const { file, ctx } = projectFile(workspaceRoot, options.file);
  const nameProblem = checkServerName(ctx, name);
  if (nameProblem) throw new WeftError('CONFIG_INVALID', nameProblem.message, { data: { problems: [nameProblem] } });
  const text = await readOptionalFile(file);
  if (text === undefined) return { file, removed: false };
  const result = removeServerFromMcpJsonText(text, ctx, name);
  if (result.removed) await writeFileAtomic(file, result.text);
  return { file, removed: result.removed };
}
