/**
 * Tool definitions as each provider accepts them. Names become provider-safe
 * (`tool-names.ts`), references are inlined (`schema-refs.ts`), the root becomes a plain
 * object schema (Anthropic and OpenAI refuse `oneOf`/`anyOf`/`allOf` at the top), and
 * Gemini gets its schema subset (`gemini-schema.ts`). The registry's tool and schema stay
 * untouched: the loop maps each call back by name, and the executor validates against
 * the original schema. A tool whose schema cannot be adapted is left out with a warning;
 * the others are still offered.
 */
import type { JsonSchema } from '../core/json-schema.js';
import { errorMessage } from '../core/errors.js';
import type { Tool } from '../tools/tool.js';
import { mergeAllOf, toGeminiSchema } from './gemini-schema.js';
import type { ModelToolSpec, ToolDialect } from './model-client.js';
import { inlineRefs, SchemaAdaptationError } from './schema-refs.js';
import { providerToolName } from './tool-names.js';

/** Larger adapted schemas (usually from inlining shared definitions) are refused. */
export const MAX_ADAPTED_SCHEMA_BYTES = 64 * 1024;
const META_KEYS = ['$schema', '$id', '$comment', '$anchor', '$dynamicAnchor', '$vocabulary'];

/** What adapting needs of a tool (a registry `Tool`, or a listed MCP tool). */
export type ToolDefinition = Pick<Tool, 'name' | 'description' | 'inputSchema'>;

export interface AdaptedTools<T extends ToolDefinition = Tool> {
  specs: ModelToolSpec[];
  /** The registry tool behind a provider-safe name. */
  toolFor(name: string): T | undefined;
  warnings: string[];
}

function isNode(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isObjectSchema(value: unknown): value is Record<string, unknown> {
  return isNode(value) && (value.type === 'object' || (value.type === undefined && isNode(value.properties)));
}

/** Alternatives at the root become one object with every property; only what all of them require stays required. */
function flattenRootAlternatives(root: Record<string, unknown>): Record<string, unknown> {
  const key = Array.isArray(root.anyOf) ? 'anyOf' : Array.isArray(root.oneOf) ? 'oneOf' : undefined;
  if (key === undefined) return root;
  const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = root;
  const branches = (root[key] as unknown[]).map((branch) => (isNode(branch) ? mergeAllOf(branch) : branch));
  // `{ properties, anyOf: [{ required: [a] }, { required: [b] }] }` only constrains: drop the constraint.
  if (isNode(rest.properties)) return rest;
  if (!branches.every(isObjectSchema)) throw new SchemaAdaptationError(`its top-level ${key} has alternatives that are not objects`);
  const properties: Record<string, unknown> = {};
  for (const branch of branches)
    for (const [name, schema] of Object.entries(isNode(branch.properties) ? branch.properties : {})) properties[name] ??= schema;
  const requiredSets = branches.map((branch) => new Set(Array.isArray(branch.required) ? (branch.required as string[]) : []));
  const required = [...(requiredSets[0] ?? [])].filter((name) => requiredSets.every((set) => set.has(name)));
  const note = `Accepts one of ${branches.length} argument shapes: ${branches.map((branch) => `{${Object.keys(isNode(branch.properties) ? branch.properties : {}).join(', ')}}`).join(' or ')}.`;
  return {
    ...rest,
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    description: typeof rest.description === 'string' ? `${rest.description} ${note}` : note,
  };
}

/**
 * The provider form of one input schema. Throws `SchemaAdaptationError` when it cannot
 * be adapted (remote references, a root that is not an object, too large).
 */
export function adaptSchema(schema: unknown, dialect: ToolDialect): JsonSchema {
  if (!isNode(schema)) throw new SchemaAdaptationError('its input schema is not a JSON object');
  let root = flattenRootAlternatives(mergeAllOf(inlineRefs(schema)));
  if (root.type === undefined) root = { type: 'object', ...root };
  if (root.type !== 'object')
    throw new SchemaAdaptationError(`its input schema's root must be an object, not ${JSON.stringify(root.type)}`);
  for (const key of META_KEYS) delete root[key];
  const adapted = dialect === 'gemini' ? toGeminiSchema(root) : { ...root, properties: isNode(root.properties) ? root.properties : {} };
  const size = Buffer.byteLength(JSON.stringify(adapted));
  if (size > MAX_ADAPTED_SCHEMA_BYTES)
    throw new SchemaAdaptationError(
      `its input schema is ${Math.round(size / 1024)} KiB once references are inlined (limit ${MAX_ADAPTED_SCHEMA_BYTES / 1024} KiB)`,
    );
  return adapted;
}

/**
 * Provider-safe definitions for `tools`, in order.
 *
 * @example
 * const adapted = adaptTools(registry.list(), 'gemini');
 * adapted.toolFor(adapted.specs[0].name); // → the registry's Tool
 */
export function adaptTools<T extends ToolDefinition = Tool>(tools: readonly T[], dialect: ToolDialect): AdaptedTools<T> {
  const specs: ModelToolSpec[] = [];
  const byName = new Map<string, T>();
  const warnings: string[] = [];
  for (const tool of tools) {
    let inputSchema: JsonSchema;
    try {
      inputSchema = adaptSchema(tool.inputSchema, dialect);
    } catch (error) {
      const reason = error instanceof SchemaAdaptationError ? error.message : `adapting its schema failed (${errorMessage(error)})`;
      warnings.push(`Tool '${tool.name}' is not offered to the model: ${reason}.`);
      continue;
    }
    const name = providerToolName(tool.name, dialect, new Set(byName.keys()));
    byName.set(name, tool);
    specs.push({ name, description: tool.description, inputSchema });
  }
  return { specs, toolFor: (name) => byName.get(name), warnings };
}
