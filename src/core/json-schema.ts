/**
 * JSON Schema validation with ajv: 2020-12 by default, draft-07 when a schema says so.
 * Compiled validators are cached per schema object, because tool schemas are validated
 * on every call.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import AjvDraft07 from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type AjvInstance = InstanceType<typeof Ajv2020> | InstanceType<typeof AjvDraft07.default>;
const addFormats = addFormatsModule as unknown as (ajv: AjvInstance) => void;

export type JsonSchema = Record<string, unknown>;

export interface SchemaCheck {
  ok: boolean;
  /** One line per problem, each naming the JSON path, e.g. `/items/0/name: must be string`. */
  problems: string[];
}

let ajv2020: InstanceType<typeof Ajv2020> | undefined;
let ajv07: InstanceType<typeof AjvDraft07.default> | undefined;
const cache = new WeakMap<object, ValidateFunction>();

function ajvFor(schema: JsonSchema): AjvInstance {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (dialect.includes('draft-07') || dialect.includes('draft-06') || dialect.includes('draft-04')) {
    if (!ajv07) {
      ajv07 = new AjvDraft07.default({ allErrors: true, strict: false, validateSchema: false });
      addFormats(ajv07);
    }
    return ajv07;
  }
  if (!ajv2020) {
    ajv2020 = new Ajv2020({ allErrors: true, strict: false, validateSchema: false });
    addFormats(ajv2020);
  }
  return ajv2020;
}

/** Compiles (once) and returns a validator; throws when the schema itself is broken. */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  const cached = cache.get(schema);
  if (cached) return cached;
  const validate = ajvFor(schema).compile(schema);
  cache.set(schema, validate);
  return validate;
}

export function describeSchemaError(error: ErrorObject): string {
  const path = error.instancePath === '' ? '(root)' : error.instancePath;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') return `${path}: unknown property '${String(params.additionalProperty)}'`;
  if (error.keyword === 'required') return `${path === '(root)' ? '' : `${path}/`}${String(params.missingProperty)}: is required`.replace(/^\//, '/');
  if (error.keyword === 'enum') return `${path}: must be one of ${JSON.stringify(params.allowedValues)}`;
  return `${path}: ${error.message ?? 'is invalid'}`;
}

export function checkAgainstSchema(schema: JsonSchema, value: unknown): SchemaCheck {
  const validate = compileSchema(schema);
  if (validate(value)) return { ok: true, problems: [] };
  const problems = (validate.errors ?? []).map(describeSchemaError);
  return { ok: false, problems: [...new Set(problems)] };
}
