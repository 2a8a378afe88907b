/**
 * Stands in for `@modelcontextprotocol/server/_shims` in weft's bundle (see
 * scripts/build.mjs). The SDK's Node shim imports its ajv-based JSON Schema validator,
 * and with it ajv, as the server module loads: ≈ 15 ms of `weft mcp start` before its
 * first tools/list (spec §8). weft's tools validate with zod; the SDK needs a JSON Schema
 * validator only for values checked against JSON Schemas, so this one reaches ajv
 * (through core/json-schema, which loads it on first use) only then. With the fast path
 * off (`mcp/fast-path/fast-path-switch.ts`) it hands every schema to the SDK's own
 * validator instead, loaded when the first one is made.
 *
 * Retired when the SDK's Node shim loads its validator lazily (or the server takes the
 * validator as an option before it imports one).
 */
import { createRequire } from 'node:module';
import process from 'node:process';
import { compileSchema, describeSchemaError, type JsonSchema } from '../../../core/json-schema.js';
import { mcpFastPath } from '../../../mcp/fast-path/fast-path-switch.js';

type ValidationResult = { valid: true; data: unknown; errorMessage: undefined } | { valid: false; data: undefined; errorMessage: string };
type Validator = { getValidator(schema: JsonSchema): (input: unknown) => ValidationResult };

/** The SDK's own validator, by `require` so that nothing loads it while the fast path is on. */
function sdkValidator(): Validator {
  const { AjvJsonSchemaValidator } = createRequire(import.meta.url)('@modelcontextprotocol/server/validators/ajv') as {
    AjvJsonSchemaValidator: new () => Validator;
  };
  return new AjvJsonSchemaValidator();
}

export class DefaultJsonSchemaValidator {
  readonly #sdk: Validator | undefined = mcpFastPath(process.env) ? undefined : sdkValidator();

  getValidator(schema: JsonSchema): (input: unknown) => ValidationResult {
    if (this.#sdk !== undefined) return this.#sdk.getValidator(schema);
    const validate = compileSchema(schema);
    return (input) =>
      validate(input)
        ? { valid: true, data: input, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: (validate.errors ?? []).map(describeSchemaError).join('; ') || 'invalid' };
  }
}

export { process };
