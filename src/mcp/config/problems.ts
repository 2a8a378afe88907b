/**
 * Config problems: the shape reported to users, and the builders that make every message
 * name the file, the server and the field, and say how to fix it.
 */
import path from 'node:path';
import { WeftError } from '../../core/errors.js';

export type McpConfigSeverity = 'error' | 'warning';

export interface McpConfigProblem {
  /** Absolute path of the file (or a label such as `mcp add-json`). */
  file: string;
  server?: string;
  field?: string;
  message: string;
  severity: McpConfigSeverity;
}

export type ConfigFormat = 'json' | 'toml';

/** Where entries come from: the file, how to show it, and which syntax fixes are written in. */
export interface FileContext {
  file: string;
  display: string;
  format: ConfigFormat;
}

/** A path as people recognise it: relative inside the workspace, `~/…` inside home, else absolute. */
export function displayPath(file: string, workspaceRoot?: string, homeDir?: string): string {
  if (!path.isAbsolute(file)) return file;
  for (const [root, prefix] of [[workspaceRoot, ''], [homeDir, '~/']] as const) {
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

export function serverProblem(ctx: FileContext, server: string, text: string, fix: string, severity: McpConfigSeverity = 'error'): McpConfigProblem {
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

/** A short description of what a value is, for "must be X, not Y" messages. */
export function describeValue(format: ConfigFormat, value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return format === 'json' ? 'an object' : 'a table';
  if (typeof value === 'boolean') return 'a boolean';
  if (typeof value === 'number' || typeof value === 'bigint') return `a number (${String(value)})`;
  if (typeof value === 'string') return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  return typeof value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** The closest known word within two edits, for "did you mean" hints. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
