/**
 * The subset of JSON Schema the Gemini API accepts for function parameters (an OpenAPI
 * 3.0 Schema subset): every node has a type; `anyOf` stands alone; no
 * `additionalProperties`, `oneOf`, `allOf`, `const`, `not`, conditionals, tuples or
 * non-string enums; string formats only `date-time` and `enum`. Input must have its
 * references inlined already (`schema-refs.ts`).
 *
 * Everything here loosens and never tightens, except where Gemini needs a type that JSON
 * Schema left open (then: a string described as "any JSON value"). The tool's own schema
 * still validates each call, so the tool never receives anything it would not accept.
 */
import type { JsonSchema } from '../core/json-schema.js';

type Node = Record<string, unknown>;

const STRING_FORMATS = new Set(['date-time', 'enum']);
const NUMBER_FORMATS = new Set(['int32', 'int64', 'float', 'double']);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array']);

function isNode(value: unknown): value is Node {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describe(node: Node, extra?: string): { description?: string } {
  const text = [typeof node.description === 'string' ? node.description : '', extra ?? ''].filter((part) => part !== '').join(' ');
  return text === '' ? {} : { description: text };
}

function anyValue(node: Node): JsonSchema {
  return { type: 'string', ...describe(node, '(any JSON value)') };
}

function withNull(schema: JsonSchema): JsonSchema {
  return typeof schema.type === 'string' ? { ...schema, type: [schema.type, 'null'] } : schema;
}

/** Folds `allOf` branches into the node: properties and required lists unite; the first type wins. */
export function mergeAllOf(node: Node): Node {
  if (!Array.isArray(node.allOf)) return node;
  const { allOf, ...rest } = node;
  let merged: Node = { ...rest };
  for (const branch of allOf as unknown[]) {
    if (!isNode(branch)) continue;
    const flat = mergeAllOf(branch);
    merged = {
      ...flat,
      ...merged,
      properties: { ...(isNode(flat.properties) ? flat.properties : {}), ...(isNode(merged.properties) ? merged.properties : {}) },
      required: [
        ...new Set([...(Array.isArray(flat.required) ? flat.required : []), ...(Array.isArray(merged.required) ? merged.required : [])]),
      ],
    };
  }
  if (Object.keys(merged.properties as Node).length === 0) delete merged.properties;
  if ((merged.required as unknown[]).length === 0) delete merged.required;
  return merged;
}

function inferType(node: Node): string | undefined {
  if (isNode(node.properties)) return 'object';
  if (node.items !== undefined) return 'array';
  const values = (Array.isArray(node.enum) ? node.enum : node.const !== undefined ? [node.const] : []).filter((value) => value !== null);
  if (values.length === 0) return undefined;
  if (values.every((value) => typeof value === 'string')) return 'string';
  if (values.every((value) => Number.isInteger(value))) return 'integer';
  if (values.every((value) => typeof value === 'number')) return 'number';
  if (values.every((value) => typeof value === 'boolean')) return 'boolean';
  return undefined;
}

function alternatives(node: Node): JsonSchema | undefined {
  const options = (Array.isArray(node.anyOf) ? node.anyOf : node.oneOf) as unknown[];
  const nullable = options.some((option) => isNode(option) && option.type === 'null');
  const branches = options.filter((option) => !(isNode(option) && option.type === 'null')).map((option) => convert(option));
  const kept = branches.filter((branch): branch is JsonSchema => branch !== undefined);
  if (kept.length === 0) return nullable ? withNull(anyValue(node)) : anyValue(node);
  if (kept.length === 1) {
    const only = { ...kept[0], ...describe(node) } as JsonSchema;
    return nullable ? withNull(only) : only;
  }
  return { anyOf: kept };
}

function enumOf(node: Node, type: string): { schema: JsonSchema; nullable: boolean } {
  const values = Array.isArray(node.enum) ? (node.enum as unknown[]) : node.const !== undefined ? [node.const] : undefined;
  if (values === undefined) return { schema: {}, nullable: false };
  const nullable = values.includes(null);
  const rest = values.filter((value) => value !== null);
  if (type === 'string' && rest.length > 0 && rest.every((value) => typeof value === 'string')) return { schema: { enum: rest }, nullable };
  return { schema: rest.length > 0 ? { description: `One of: ${rest.map((value) => JSON.stringify(value)).join(', ')}.` } : {}, nullable };
}

function typed(node: Node, type: string): JsonSchema {
  const out: JsonSchema = { type, ...describe(node) };
  const { schema: enumSchema, nullable } = enumOf(node, type);
  if (enumSchema.enum) out.enum = enumSchema.enum;
  if (typeof enumSchema.description === 'string')
    out.description = `${typeof out.description === 'string' ? `${out.description} ` : ''}${enumSchema.description}`;
  const format = typeof node.format === 'string' ? node.format : undefined;
  switch (type) {
    case 'string':
      if (format !== undefined && STRING_FORMATS.has(format)) out.format = format;
      if (typeof node.minLength === 'number') out.minLength = node.minLength;
      break;
    case 'number':
    case 'integer':
      if (format !== undefined && NUMBER_FORMATS.has(format)) out.format = format;
      break;
    case 'object': {
      const properties: Record<string, JsonSchema> = {};
      for (const [name, value] of Object.entries(isNode(node.properties) ? node.properties : {})) {
        const converted = convert(value);
        if (converted !== undefined) properties[name] = converted;
      }
      if (Object.keys(properties).length > 0) out.properties = properties;
      const required = (Array.isArray(node.required) ? node.required : []).filter(
        (name): name is string => typeof name === 'string' && Object.hasOwn(properties, name),
      );
      if (required.length > 0) out.required = [...new Set(required)];
      break;
    }
    case 'array': {
      const items = Array.isArray(node.items)
        ? node.items[0]
        : (node.items ?? (Array.isArray(node.prefixItems) ? node.prefixItems[0] : undefined));
      out.items = (items === undefined ? undefined : convert(items)) ?? anyValue({});
      break;
    }
    default:
      break;
  }
  return nullable ? withNull(out) : out;
}

/** One schema node in Gemini's subset; `undefined` for a schema that accepts nothing (`false`). */
function convert(input: unknown): JsonSchema | undefined {
  if (input === false) return undefined;
  if (!isNode(input)) return anyValue({});
  const node = mergeAllOf(input);
  const ownShape = node.type !== undefined || isNode(node.properties);
  if (!ownShape && (Array.isArray(node.anyOf) || Array.isArray(node.oneOf))) return alternatives(node);
  const declared = Array.isArray(node.type)
    ? (node.type as unknown[]).filter((type): type is string => typeof type === 'string')
    : typeof node.type === 'string'
      ? [node.type]
      : [];
  const nullable = declared.includes('null');
  const types = declared.filter((type) => TYPES.has(type));
  if (types.length === 0) {
    const inferred = inferType(node);
    if (inferred === undefined) return nullable ? withNull(anyValue(node)) : anyValue(node);
    types.push(inferred);
  }
  if (types.length === 1) {
    const single = typed(node, types[0] as string);
    return nullable ? withNull(single) : single;
  }
  // Gemini wants `anyOf` alone on its node, so the description goes to each branch.
  return { anyOf: types.map((type) => typed(node, type)) };
}

/**
 * The Gemini form of a tool's (inlined) input schema; the root is always an object.
 *
 * @example toGeminiSchema({ type: 'object', properties: { a: { oneOf: [{ type: 'string' }, { type: 'integer' }] } }, additionalProperties: false })
 * // → { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } }
 */
export function toGeminiSchema(schema: JsonSchema): JsonSchema {
  return typed(mergeAllOf(schema), 'object');
}
