/**
 * Config problems: the shape reported to users, and the builders that make every message
 * name the file, the server and the field, and say how to fix it.
 */
import path from 'node:path';
import type { ConfigFormat } from '../../core/config-text/describe-value.js';
import { WeftError } from '../../core/errors.js';

/** An `error` skips the server concerned; a `warning` does not. */
export type McpConfigSeverity = 'error' | 'warning';

/** A problem in an MCP configuration file, with where it is and how to fix it. */
export interface McpConfigProblem {
  /** Absolute path of the file (or a label such as `mcp add-json`). */
  file: string;
  server?: string;
  field?: string;
  message: string;
  severity: McpConfigSeverity;
}

/** Where entries come from: the file, how to show it, and which syntax fixes are written in. */
export interface FileContext {
  file: string;
  display: string;
  format: ConfigFormat;
}

/** A path as people recognise it: relative inside the workspace, `~/…` inside home, else absolute. */
export function displayPath(file: string, workspaceRoot?: string, homeDir?: string): string {
  if (!path.isAbsolute(file)) return file;
  for (const [root, prefix] of [
    [workspaceRoot, ''],
    [homeDir, '~/'],
  ] as const) {
    if (!root) continue;
    const relative = path.relative(root, file);
    if (relative && !relative.startsWith('..') && !path.isAbsolute(relative)) return prefix + relative.split(path.sep).join('/');
  }
  return file;
}

export function fileContext(file: string, format: ConfigFormat, workspaceRoot?: string, homeDir?: string): FileContext {
  return { file, display: displayPath(file, workspaceRoot, homeDir), format };
}

export function fileProblem(ctx: FileContext, text: string, fix: string, severity: McpConfigSeverity = 'error'): McpConfigProblem {
  return { file: ctx.file, message: `${ctx.display}: ${text} — ${fix}`, severity };
}

export function serverProblem(
  ctx: FileContext,
  server: string,
  text: string,
  fix: string,
  severity: McpConfigSeverity = 'error',
): McpConfigProblem {
  return { file: ctx.file, server, message: `${ctx.display}: server '${server}': ${text} — ${fix}`, severity };
}

export function fieldProblem(
  ctx: FileContext,
  server: string,
  field: string,
  text: string,
  fix: string,
  severity: McpConfigSeverity = 'error',
): McpConfigProblem {
  return { file: ctx.file, server, field, message: `${ctx.display}: server '${server}': field '${field}' ${text} — ${fix}`, severity };
}

/** A value written the way the file's syntax writes it (`"a"`, `["a", "b"]`, `{ K = "v" }`). */
export function renderValue(format: ConfigFormat, value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => renderValue(format, item)).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const pairs = Object.entries(value).map(([key, item]) =>
      format === 'json' ? `${JSON.stringify(key)}: ${renderValue(format, item)}` : `${key} = ${renderValue(format, item)}`,
    );
    return `{ ${pairs.join(', ')} }`;
  }
  return JSON.stringify(value);
}

/** `"key": value` in JSON, `key = value` in TOML. */
export function example(format: ConfigFormat, key: string, value: unknown): string {
  return format === 'json' ? `${JSON.stringify(key)}: ${renderValue(format, value)}` : `${key} = ${renderValue(format, value)}`;
}

export function hasErrors(problems: McpConfigProblem[]): boolean {
  return problems.some((problem) => problem.severity === 'error');
}

/** One `CONFIG_INVALID` error carrying every error message (one per line) and the problems. */
export function problemsError(problems: McpConfigProblem[]): WeftError {
  const errors = problems.filter((problem) => problem.severity === 'error');
  return new WeftError('CONFIG_INVALID', errors.map((problem) => problem.message).join('\n'), { data: { problems: errors } });
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
