/**
 * Values from a JSON Schema (the MCP tools' input schemas, the HTTP API's OpenAPI
 * bodies) — mostly valid ones, so calls reach the handlers — and the mutations a hostile
 * client sends instead: wrong types, huge and odd numbers, deep nesting, long strings,
 * unknown fields, missing required fields.
 */
import type { Rng } from './rng.js';

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  [key: string]: unknown;
};

/** Numbers no schema means: the edges of IEEE doubles and of safe integers. */
const ODD_NUMBERS = [1e308, -1e308, 2 ** 53 + 2, -(2 ** 53 + 2), 5e-324, -0, 0.5, -1, 2 ** 53, 1e21];

/** Raw JSON number texts `JSON.stringify` never writes (so the frame builder splices them in). */
export const RAW_NUMBER_TEXTS = ['1e999', '-1e999', '123456789012345678901234567890', '0.0000000000000000000000000001e-400', '1E+400'];

/** Keeps generated waits short: a valid gather must not legitimately wait for minutes. */
function bounded(schema: JsonSchema, rng: Rng): number {
  const min = schema.minimum ?? 0;
  const max = Math.min(schema.maximum ?? min + 3, min + 3);
  return schema.type === 'integer' ? rng.int(Math.ceil(min), Math.floor(max)) : min + rng.next() * (max - min);
}

/** A value the schema (probably) accepts. */
export function validValue(schema: JsonSchema, rng: Rng, depth = 0): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return rng.pick(schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union && union.length > 0) return validValue(rng.pick(union), rng, depth);
  const type = Array.isArray(schema.type) ? rng.pick(schema.type) : schema.type;
  switch (type) {
    case 'string': {
      const min = schema.minLength ?? 0;
      let text = rng.string(Math.min(schema.maxLength ?? 12, 12));
      while (text.length < min) text += 'x';
      return schema.maxLength !== undefined ? text.slice(0, schema.maxLength) : text;
    }
    case 'integer':
    case 'number':
      return bounded(schema, rng);
    case 'boolean':
      return rng.chance(0.5);
    case 'null':
      return null;
    case 'array': {
      const count = Math.max(schema.minItems ?? 0, rng.int(0, Math.min(schema.maxItems ?? 3, 3)));
      return Array.from({ length: count }, () => (schema.items ? validValue(schema.items, rng, depth + 1) : rng.string()));
    }
    case 'object':
    default: {
      if (depth > 4) return {};
      const value: Record<string, unknown> = {};
      const required = new Set(schema.required ?? []);
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        if (required.has(name) || rng.chance(0.4)) value[name] = validValue(property, rng, depth + 1);
      }
      return value;
    }
  }
}

/** An object nested `depth` levels deep (built iteratively: the generator itself must not overflow). */
export function deepNest(depth: number, arrays: boolean): unknown {
  let value: unknown = 0;
  for (let i = 0; i < depth; i++) value = arrays ? [value] : { a: value };
  return value;
}

export type Mutation =
  'wrong-type' | 'odd-number' | 'deep-nesting' | 'long-string' | 'unknown-field' | 'missing-required' | 'null-field' | 'proto-key';

export const MUTATIONS: readonly Mutation[] = [
  'wrong-type',
  'odd-number',
  'deep-nesting',
  'long-string',
  'unknown-field',
  'missing-required',
  'null-field',
  'proto-key',
];

function wrongType(value: unknown, rng: Rng): unknown {
  const others: unknown[] = [rng.string(), rng.int(-5, 5), true, null, [], {}, [rng.string()], { x: 1 }];
  return rng.pick(others.filter((other) => typeof other !== typeof value || Array.isArray(other) !== Array.isArray(value)));
}

/** `value` (a valid object for `schema`) with one hostile change. */
export function mutate(value: Record<string, unknown>, schema: JsonSchema, mutation: Mutation, rng: Rng): Record<string, unknown> {
  const names = Object.keys(schema.properties ?? {});
  const target = names.length > 0 ? rng.pick(names) : 'x';
  const copy: Record<string, unknown> = { ...value };
  switch (mutation) {
    case 'wrong-type':
      copy[target] = wrongType(copy[target], rng);
      break;
    case 'odd-number':
      copy[target] = rng.pick(ODD_NUMBERS);
      break;
    case 'deep-nesting':
      copy[target] = deepNest(rng.pick([100, 500, 2000]), rng.chance(0.5));
      break;
    case 'long-string':
      copy[target] = 'L'.repeat(rng.pick([70_000, 300_000]));
      break;
    case 'unknown-field':
      copy[`${rng.string(6)}_unknown`] = rng.string();
      break;
    case 'missing-required': {
      const required = schema.required ?? [];
      if (required.length > 0) delete copy[rng.pick(required)];
      else copy[target] = undefined;
      break;
    }
    case 'null-field':
      copy[target] = null;
      break;
    case 'proto-key':
      // A literal "__proto__" own key (JSON.parse makes one), aimed at prototype pollution.
      Object.defineProperty(copy, rng.pick(['__proto__', 'constructor']), {
        value: { polluted: true, toString: 1 },
        enumerable: true,
        configurable: true,
        writable: true,
      });
      break;
  }
  return copy;
}
