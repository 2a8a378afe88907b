/**
 * What a config value is, for the one wording of "must be X, not Y" in workflow files,
 * settings and MCP config: the kind with its article and, for scalars, the value
 * (`a string ("yes")`, `a number (3000)`), and objects named in the file's own syntax
 * (`an object` in JSON, `a table` in TOML).
 */

export type ConfigFormat = 'json' | 'toml';

/** A TOML table as the parser returns it: an object that is neither an array nor a date. */
export function isTable(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

/** Longest string shown whole; longer ones are clipped with `…`. */
const SHOWN_STRING_LENGTH = 40;

/**
 * @example describeValue(3000) // → 'a number (3000)'
 * @example describeValue({ a: 1 }, 'json') // → 'an object'
 */
export function describeValue(value: unknown, format: ConfigFormat = 'toml'): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date';
  if (typeof value === 'object') return format === 'json' ? 'an object' : 'a table';
  if (typeof value === 'boolean') return 'a boolean';
  // Spelled as TOML writes them: String() would print NaN and Infinity.
  if (typeof value === 'number' && !Number.isFinite(value)) return `a number (${Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf'})`;
  if (typeof value === 'number' || typeof value === 'bigint') return `a number (${String(value)})`;
  if (typeof value === 'string')
    return `a string (${JSON.stringify(value.length > SHOWN_STRING_LENGTH ? `${value.slice(0, SHOWN_STRING_LENGTH)}…` : value)})`;
  return typeof value;
}
