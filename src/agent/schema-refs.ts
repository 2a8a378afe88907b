/**
 * Inlines local `$ref`s (`#/$defs/x`, `#/definitions/x`, `#`, any local JSON pointer) so
 * that a schema needs no definitions, which several providers refuse. A reference that
 * recurses into itself is cut at its second occurrence and replaced by a loose schema of
 * the same type with a note — the model sees a looser shape, and the tool's own schema
 * still validates every call. Remote or missing references cannot be inlined.
 */
import type { JsonSchema } from '../core/json-schema.js';

export class SchemaAdaptationError extends Error {
  override readonly name = 'SchemaAdaptationError';
}

const DEFINITION_KEYS = ['$defs', 'definitions'];
const MAX_DEPTH = 48;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function resolvePointer(root: JsonSchema, ref: string): unknown {
  if (!ref.startsWith('#')) throw new SchemaAdaptationError(`the reference '${ref}' points outside the schema`);
  const pointer = ref.slice(1);
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) throw new SchemaAdaptationError(`the reference '${ref}' uses an anchor, which cannot be inlined`);
  let current: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current) && /^\d+$/.test(key)) current = current[Number(key)];
    else if (isObject(current) && Object.hasOwn(current, key)) current = current[key];
    else throw new SchemaAdaptationError(`the reference '${ref}' points to nothing`);
  }
  return current;
}

function placeholder(target: unknown, ref: string): JsonSchema {
  const type = isObject(target) && typeof target.type === 'string' ? target.type : 'object';
  const name = ref.split('/').at(-1) || 'the root';
  return {
    type,
    description: `${isObject(target) && typeof target.description === 'string' ? `${target.description} ` : ''}(same shape as ${name}, nested)`,
  };
}

/**
 * A copy of `schema` with every local reference inlined and the definitions removed.
 * Throws `SchemaAdaptationError` for references it cannot follow.
 */
export function inlineRefs(schema: JsonSchema): JsonSchema {
  const visit = (node: unknown, stack: readonly string[], depth: number): unknown => {
    if (depth > MAX_DEPTH) throw new SchemaAdaptationError(`the schema is nested more than ${MAX_DEPTH} levels deep`);
    if (Array.isArray(node)) return node.map((item) => visit(item, stack, depth + 1));
    if (!isObject(node)) return node;
    if (typeof node.$ref === 'string') {
      const ref = node.$ref;
      const target = resolvePointer(schema, ref);
      const { $ref: _ref, ...siblings } = node;
      if (stack.includes(ref)) return { ...placeholder(target, ref), ...stripDefinitions(siblings) };
      const resolved = visit(target, [...stack, ref], depth + 1);
      if (typeof resolved === 'boolean') return resolved ? visit(siblings, stack, depth + 1) : false;
      return {
        ...(resolved as Record<string, unknown>),
        ...(visit(stripDefinitions(siblings), stack, depth + 1) as Record<string, unknown>),
      };
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (DEFINITION_KEYS.includes(key)) continue;
      out[key] = key === 'properties' || key === 'patternProperties' ? visitMap(value, stack, depth) : visit(value, stack, depth + 1);
    }
    return out;
  };
  const visitMap = (value: unknown, stack: readonly string[], depth: number): unknown => {
    if (!isObject(value)) return value;
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, visit(item, stack, depth + 1)]));
  };
  return visit(schema, [], 0) as JsonSchema;
}

function stripDefinitions(node: Record<string, unknown>): Record<string, unknown> {
  const out = { ...node };
  for (const key of DEFINITION_KEYS) delete out[key];
  return out;
}
