/**
 * What a config value is, for "must be X, got Y" messages about workflow files, settings and
 * MCP config. Two wordings remain, because each is pinned by the messages people already
 * see: workflows and settings show the type and the value (`string "yes"`); MCP config
 * names the kind in the file's own syntax (`an object` in JSON, `a table` in TOML).
 */

export type ConfigFormat = 'json' | 'toml';

/**
 * @example describeValue('yes') // → 'string "yes"'
 * @example describeValue({ a: 1 }) // → 'a table'
 */
export function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date';
  if (value !== null && typeof value === 'object') return 'a table';
  // Spelled as TOML writes them: JSON would print nan and inf as null, String() as NaN and Infinity.
  if (typeof value === 'number' && !Number.isFinite(value)) return `number ${Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf'}`;
  return `${typeof value} ${JSON.stringify(value)}`;
}

/**
 * @example describeValueAs('json', { a: 1 }) // → 'an object'
 * @example describeValueAs('toml', 3000) // → 'a number (3000)'
 */
export function describeValueAs(format: ConfigFormat, value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return format === 'json' ? 'an object' : 'a table';
  if (typeof value === 'boolean') return 'a boolean';
  if (typeof value === 'number' || typeof value === 'bigint') return `a number (${String(value)})`;
  if (typeof value === 'string') return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  return typeof value;
}
