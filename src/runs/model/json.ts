/**
 * JSON values as the run store keeps them (inputs, event payloads, answers, MCP server
 * configs), and the one normalisation both store implementations apply so that an
 * in-memory store and a database return the same thing for the same input.
 */
import { WeftError } from '../../core/errors.js';

/** A JSON scalar. */
export type JsonPrimitive = string | number | boolean | null;
/** Any value JSON can hold: what inputs, outputs, answers and signal data are. */
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** Largest serialised payload one event may carry; bigger outputs belong in artifacts. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Serialises a JSON object and parses it back, as a database round trip would: `undefined`
 * members disappear, non-finite numbers become null. Refuses cycles, non-objects and
 * payloads over {@link MAX_PAYLOAD_BYTES}.
 *
 * @example normalizeJsonObject({ a: 1, b: undefined }, 'inputs') // → { text: '{"a":1}', value: { a: 1 } }
 */
export function normalizeJsonObject(value: unknown, what: string): { text: string; value: JsonObject } {
  if (!isJsonObject(value)) {
    throw new WeftError('RUN_INVALID_PARAMS', `${what} must be a JSON object, got ${describeType(value)}.`);
  }
  const text = stringify(value, what);
  if (Buffer.byteLength(text, 'utf8') > MAX_PAYLOAD_BYTES) {
    throw new WeftError(
      'RUN_INVALID_PARAMS',
      `${what} is larger than ${MAX_PAYLOAD_BYTES} bytes once serialised; save large outputs as artifacts and reference them.`,
    );
  }
  return { text, value: JSON.parse(text) as JsonObject };
}

/** Like {@link normalizeJsonObject} for any JSON value (answers may be strings or arrays). */
export function normalizeJsonValue(value: unknown, what: string): JsonValue {
  if (value === undefined) throw new WeftError('RUN_INVALID_PARAMS', `${what} is missing.`);
  return JSON.parse(stringify(value, what)) as JsonValue;
}

function stringify(value: unknown, what: string): string {
  try {
    const text = JSON.stringify(value);
    if (typeof text !== 'string') throw new TypeError(`${describeType(value)} is not JSON`);
    return text;
  } catch (error) {
    throw new WeftError('RUN_INVALID_PARAMS', `${what} is not serialisable as JSON: ${(error as Error).message}.`, { cause: error });
  }
}

export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
