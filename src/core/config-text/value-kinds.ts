/**
 * The kinds of value a config field may hold, how each is checked and how it is named in
 * "must be X, not Y" — one definition for workflow files, settings and MCP config. The
 * three readers differ only in where they place a problem (a line, a server's field, a
 * dotted key) and in the fix they suggest; what counts as wrong, and its wording, is here.
 */
import { parseDuration } from '../duration.js';
import { isTable, type ConfigFormat } from './describe-value.js';

export type ValueKind =
  /** `pattern.secret`: the value may hold a password, so a problem never repeats it. */
  | { kind: 'string'; values?: readonly string[]; pattern?: { test: RegExp; means: string; secret?: boolean } }
  | { kind: 'boolean' }
  | { kind: 'integer'; min?: number; max?: number; means?: string }
  | { kind: 'number'; min?: number }
  | { kind: 'duration' }
  /** `items` names the elements in messages ("tool names"); the element kind's name otherwise. */
  | { kind: 'array'; of: ValueKind; items?: string }
  /** A table whose keys are chosen by the user (env, labels, aliases), each value of one kind. */
  | { kind: 'map'; of: ValueKind }
  /** With `fields`, a table of known keys (each of its kind, others unknown); without, any table. */
  | { kind: 'table'; fields?: Readonly<Record<string, ValueKind>> };

export const STRING: ValueKind = { kind: 'string' };
export const BOOLEAN: ValueKind = { kind: 'boolean' };
export const TABLE: ValueKind = { kind: 'table' };
export const STRING_ARRAY: ValueKind = { kind: 'array', of: STRING };
export const STRING_MAP: ValueKind = { kind: 'map', of: STRING };

/** One place where a value is not of its kind: `at` is the path below the checked value. */
export interface Mismatch {
  at: (string | number)[];
  /** What was expected, with its article: `a string`, `an integer ≥ 1`. */
  expected: string;
  value: unknown;
  /** The value must not be repeated in the message (it may hold a secret). */
  secret?: boolean;
  /** Set when the key at `at` is not one the table knows: the keys it does know. */
  known?: string[];
  /** The values a string may take, when it took another (for a did-you-mean). */
  choices?: readonly string[];
}

function plural(kind: ValueKind, format: ConfigFormat): string {
  return expectedText(kind, format)
    .replace(/^an? /, '')
    .replace(/^(\S+)/, '$1s');
}

/**
 * @example expectedText({ kind: 'integer', min: 1 }) // → 'an integer ≥ 1'
 * @example expectedText(STRING_MAP, 'json') // → 'an object of strings'
 */
export function expectedText(kind: ValueKind, format: ConfigFormat = 'toml'): string {
  switch (kind.kind) {
    case 'string':
      if (kind.pattern) return kind.pattern.means;
      return kind.values ? `one of ${kind.values.map((v) => `"${v}"`).join(', ')}` : 'a string';
    case 'boolean':
      return 'true or false';
    case 'integer':
      if (kind.means) return kind.means;
      if (kind.min !== undefined && kind.max !== undefined) return `an integer between ${kind.min} and ${kind.max}`;
      return kind.min === undefined ? 'an integer' : `an integer ≥ ${kind.min}`;
    case 'number':
      return kind.min === undefined ? 'a number' : `a number ≥ ${kind.min}`;
    case 'duration':
      return 'a duration such as "500ms", "30s" or "2m"';
    case 'array':
      return `an array of ${kind.items ?? plural(kind.of, format)}`;
    case 'map':
      return `${format === 'json' ? 'an object' : 'a table'} of ${plural(kind.of, format)}`;
    case 'table':
      return format === 'json' ? 'an object' : 'a table';
    default: {
      const unreachable: never = kind;
      return String(unreachable);
    }
  }
}

function fits(value: unknown, kind: ValueKind): boolean {
  switch (kind.kind) {
    case 'string':
      return typeof value === 'string' && (!kind.values || kind.values.includes(value)) && (!kind.pattern || kind.pattern.test.test(value));
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return (
        Number.isInteger(value) &&
        (kind.min === undefined || (value as number) >= kind.min) &&
        (kind.max === undefined || (value as number) <= kind.max)
      );
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && (kind.min === undefined || value >= kind.min);
    case 'duration':
      return (typeof value === 'string' || typeof value === 'number') && parseDuration(value) !== undefined;
    case 'array':
      return Array.isArray(value);
    case 'map':
    case 'table':
      return isTable(value);
    default: {
      const unreachable: never = kind;
      return Boolean(unreachable);
    }
  }
}

/**
 * Every place where `value` is not of `kind`: the value itself, or else each element of an
 * array or map that is not of the element kind.
 */
export function mismatches(value: unknown, kind: ValueKind, format: ConfigFormat = 'toml'): Mismatch[] {
  if (!fits(value, kind)) {
    const secret = kind.kind === 'string' && kind.pattern?.secret === true && typeof value === 'string';
    const choices = kind.kind === 'string' && typeof value === 'string' ? kind.values : undefined;
    return [{ at: [], expected: expectedText(kind, format), value, ...(secret ? { secret } : {}), ...(choices ? { choices } : {}) }];
  }
  if (kind.kind === 'array') {
    return (value as unknown[]).flatMap((item, index) =>
      mismatches(item, kind.of, format).map((found) => ({ ...found, at: [index, ...found.at] })),
    );
  }
  if (kind.kind === 'map') {
    return Object.entries(value as Record<string, unknown>).flatMap(([name, item]) =>
      mismatches(item, kind.of, format).map((found) => ({ ...found, at: [name, ...found.at] })),
    );
  }
  if (kind.kind === 'table' && kind.fields) {
    const fields = kind.fields;
    return Object.entries(value as Record<string, unknown>).flatMap(([name, item]): Mismatch[] => {
      const field = fields[name];
      if (!field) return [{ at: [name], expected: '', value: item, known: Object.keys(fields) }];
      return mismatches(item, field, format).map((found) => ({ ...found, at: [name, ...found.at] }));
    });
  }
  return [];
}
