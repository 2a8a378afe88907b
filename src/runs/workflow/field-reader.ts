/**
 * Typed reads of one TOML table with problems instead of exceptions: each read checks the
 * value's kind (`core/config-text/value-kinds.ts`, shared with settings and MCP config),
 * records a problem at the key's line when it is wrong, and returns undefined so
 * validation can carry on and report everything at once.
 */
import { describeValue } from '../../core/config-text/describe-value.js';
import {
  BOOLEAN,
  STRING,
  STRING_ARRAY,
  STRING_MAP,
  TABLE,
  expectedText,
  mismatches,
  type ValueKind,
} from '../../core/config-text/value-kinds.js';
import { parseDuration } from '../../core/duration.js';
import { suggestion } from '../../core/config-text/did-you-mean.js';
import type { KeyPath, LineMap } from '../../core/config-text/line-map.js';
import type { StageFunction, WorkflowProblem } from './types.js';

export interface ParseContext {
  file: string;
  lines: LineMap;
  problems: WorkflowProblem[];
  /** Functions of `function` nodes by node name, when the text came from a workflow module. */
  functions?: ReadonlyMap<string, StageFunction>;
}

export function report(context: ParseContext, path: KeyPath, message: string): void {
  context.problems.push({ file: context.file, line: context.lines.lineOf(path), message });
}

/** Drops keys whose value is undefined, so parsed objects carry only what was written. */
export function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}

export class FieldReader {
  constructor(
    readonly context: ParseContext,
    readonly table: Record<string, unknown>,
    readonly path: KeyPath,
    /** How messages name the table, e.g. `node 'check' (command)` or `[run]`. */
    readonly subject: string,
  ) {}

  /** Records a problem at the line of `key` (a key or a key path below this table). */
  problem(key: string | number | KeyPath | undefined, message: string): void {
    const below = key === undefined ? [] : Array.isArray(key) ? (key as KeyPath) : [key as string | number];
    report(this.context, [...this.path, ...below], `${this.subject}: ${message}`);
  }

  has(key: string): boolean {
    return this.table[key] !== undefined;
  }

  #wrong(key: string, expected: string, fix: string): undefined {
    this.problem(key, `'${key}' must be ${expected}, not ${describeValue(this.table[key])} — ${fix}`);
    return undefined;
  }

  /** The value of `key` when it is of `kind` (or absent); else a problem with `fix`. */
  #read<T>(key: string, kind: ValueKind, fix: string): T | undefined {
    const value = this.table[key];
    if (value === undefined) return undefined;
    return mismatches(value, kind).length === 0 ? (value as T) : this.#wrong(key, expectedText(kind), fix);
  }

  /** Reports a missing required key; `example` is the value shown in the fix. */
  require(key: string, example: string): boolean {
    if (this.has(key)) return true;
    this.problem(undefined, `missing required field '${key}' — add ${key} = ${example}`);
    return false;
  }

  string(key: string, options: { nonEmpty?: boolean } = {}): string | undefined {
    const value = this.#read<string>(key, STRING, `write ${key} = "…"`);
    if (value === undefined) return undefined;
    if (options.nonEmpty && value.trim() === '') {
      this.problem(key, `'${key}' is empty — give it a value or remove it`);
      return undefined;
    }
    return value;
  }

  oneOf<T extends string>(key: string, values: readonly T[]): T | undefined {
    const value = this.string(key);
    if (value === undefined) return undefined;
    if ((values as readonly string[]).includes(value)) return value as T;
    this.problem(key, `'${key}' must be one of ${values.join(', ')}, got "${value}"${suggestion(value, values, ` — pick one of them`)}`);
    return undefined;
  }

  boolean(key: string): boolean | undefined {
    return this.#read<boolean>(key, BOOLEAN, `write ${key} = true or ${key} = false`);
  }

  integer(key: string, min: number): number | undefined {
    return this.#read<number>(key, { kind: 'integer', min }, `write e.g. ${key} = ${Math.max(min, 1) * 10}`);
  }

  number(key: string, min: number): number | undefined {
    return this.#read<number>(key, { kind: 'number', min }, `write e.g. ${key} = ${min + 1}`);
  }

  duration(key: string): number | undefined {
    const value = this.table[key];
    if (value === undefined) return undefined;
    const ms = typeof value === 'string' || typeof value === 'number' ? parseDuration(value) : undefined;
    if (ms !== undefined) return ms;
    this.problem(
      key,
      `'${key}' is not a duration: ${typeof value === 'string' ? JSON.stringify(value) : describeValue(value)} — write e.g. "500ms", "30s", "2m", "1h" or a number of milliseconds`,
    );
    return undefined;
  }

  stringArray(key: string, options: { nonEmpty?: boolean } = {}): string[] | undefined {
    const value = this.table[key];
    if (value === undefined) return undefined;
    if (mismatches(value, STRING_ARRAY).length > 0) return this.#wrong(key, expectedText(STRING_ARRAY), `write ${key} = ["…", "…"]`);
    if (options.nonEmpty && (value as string[]).length === 0) {
      this.problem(key, `'${key}' is empty — list at least one entry`);
      return undefined;
    }
    return value as string[];
  }

  subtable(key: string): Record<string, unknown> | undefined {
    return this.#read<Record<string, unknown>>(key, TABLE, `write ${key} = { … } or a [${[...this.path, key].join('.')}] table`);
  }

  /** A table whose values must all be strings (labels, env). */
  stringTable(key: string): Record<string, string> | undefined {
    const table = this.subtable(key);
    if (!table) return undefined;
    const [bad] = mismatches(table, STRING_MAP);
    if (bad) {
      this.problem(key, `'${key}.${String(bad.at[0])}' must be ${bad.expected}, not ${describeValue(bad.value)} — quote the value`);
      return undefined;
    }
    return table as Record<string, string>;
  }

  /** Reports every key that is not in `allowed`, with a did-you-mean. */
  rejectUnknown(allowed: readonly string[], what: string): void {
    for (const key of Object.keys(this.table)) {
      if (allowed.includes(key)) continue;
      this.problem(key, `unknown field '${key}'${suggestion(key, allowed, ` — remove it; ${what} take: ${allowed.join(', ')}`)}`);
    }
  }
}
