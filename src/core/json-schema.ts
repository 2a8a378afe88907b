/**
 * JSON Schema validation with ajv: 2020-12 by default, draft-07 when a schema says so.
 * Compiled validators are cached per schema object, because tool schemas are validated
 * on every call, and by content in a bounded map, because each run's MCP servers and each
 * question hand over fresh but equal schema objects. ajv itself keeps every schema it
 * compiled, keyed by object, for as long as the instance lives: a long-lived `weft serve`
 * grew by ≈ 5 KB per run that way (the soak's RSS climb). `removeSchema` is not enough:
 * an instance's code-generation scope keeps what every compilation put in it, so an
 * instance is replaced after a fixed number of compilations; validators already made keep
 * working, and memory stays bounded even when every schema differs. ajv is required on first use, not imported: loading it costs ≈ 35 ms,
 * and modules that may validate (run questions) sit on paths that must start fast
 * (`weft mcp start` to its first tools/list, spec §8). It is CommonJS, so `require` is synchronous.
 */
import { createRequire } from 'node:module';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type AjvDraft07 from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';

type AjvInstance = InstanceType<typeof Ajv2020> | InstanceType<typeof AjvDraft07.default>;
type AjvOptions = { allErrors: boolean; strict: boolean; validateSchema: boolean };

const require = createRequire(import.meta.url);

function newAjv(dialect: '2020-12' | 'draft-07'): AjvInstance {
  const options: AjvOptions = { allErrors: true, strict: false, validateSchema: false };
  const ajv: AjvInstance =
    dialect === '2020-12'
      ? new (require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 }).Ajv2020(options)
      : new (require('ajv') as typeof AjvDraft07).default(options);
  (require('ajv-formats') as { default: (instance: AjvInstance) => void }).default(ajv);
  return ajv;
}

/** A JSON Schema document, as a plain object. */
export type JsonSchema = Record<string, unknown>;

export interface SchemaCheck {
  ok: boolean;
  /** One line per problem, each naming the JSON path, e.g. `/items/0/name: must be string`. */
  problems: string[];
}

let ajv2020: AjvInstance | undefined;
let ajv07: AjvInstance | undefined;
let compilations = 0;
const COMPILATIONS_PER_INSTANCE = 256;
const cache = new WeakMap<object, ValidateFunction>();
/** By schema text, oldest first: Map keeps insertion order, so eviction drops the first key. */
const byContent = new Map<string, ValidateFunction>();
const CONTENT_CACHE_LIMIT = 512;

function ajvFor(schema: JsonSchema): AjvInstance {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (dialect.includes('draft-07') || dialect.includes('draft-06') || dialect.includes('draft-04')) {
    ajv07 ??= newAjv('draft-07');
    return ajv07;
  }
  ajv2020 ??= newAjv('2020-12');
  return ajv2020;
}

/** Compiles (once) and returns a validator; throws when the schema itself is broken. */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  const cached = cache.get(schema);
  if (cached) return cached;
  const text = JSON.stringify(schema);
  let validate = byContent.get(text);
  if (validate) {
    byContent.delete(text);
  } else {
    if (++compilations > COMPILATIONS_PER_INSTANCE) {
      compilations = 1;
      ajv2020 = ajv07 = undefined;
    }
    const ajv = ajvFor(schema);
    validate = ajv.compile(schema);
    ajv.removeSchema(schema);
    if (byContent.size >= CONTENT_CACHE_LIMIT) byContent.delete(byContent.keys().next().value!);
  }
  byContent.set(text, validate);
  cache.set(schema, validate);
  return validate;
}

export function describeSchemaError(error: ErrorObject): string {
  const path = error.instancePath === '' ? '(root)' : error.instancePath;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') return `${path}: unknown property '${String(params.additionalProperty)}'`;
  if (error.keyword === 'required')
    return `${path === '(root)' ? '' : `${path}/`}${String(params.missingProperty)}: is required`.replace(/^\//, '/');
  if (error.keyword === 'enum') return `${path}: must be one of ${JSON.stringify(params.allowedValues)}`;
  return `${path}: ${error.message ?? 'is invalid'}`;
}

export function checkAgainstSchema(schema: JsonSchema, value: unknown): SchemaCheck {
  const validate = compileSchema(schema);
  if (validate(value)) return { ok: true, problems: [] };
  const problems = (validate.errors ?? []).map(describeSchemaError);
  return { ok: false, problems: [...new Set(problems)] };
}
