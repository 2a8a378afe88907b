/**
 * Stands in for `@modelcontextprotocol/server/_shims` in weft's bundle (see
 * scripts/build.mjs). The SDK's Node shim imports its ajv-based JSON Schema validator,
 * and with it ajv, as the server module loads: ≈ 15 ms of `weft mcp start` before its
 * first tools/list (spec §8). weft's tools validate with zod; the SDK needs a JSON Schema
 * validator only for values checked against JSON Schemas, so this one reaches ajv
 * (through core/json-schema, which loads it on first use) only then.
 */
import process from 'node:process';
import { compileSchema, describeSchemaError, type JsonSchema } from '../../core/json-schema.js';

type ValidationResult = { valid: true; data: unknown; errorMessage: undefined } | { valid: false; data: undefined; errorMessage: string };

export class DefaultJsonSchemaValidator {
  getValidator(schema: JsonSchema): (input: unknown) => ValidationResult {
    const validate = compileSchema(schema);
    return (input) =>
      validate(input)
        ? { valid: true, data: input, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: (validate.errors ?? []).map(describeSchemaError).join('; ') || 'invalid' };
  }
}

export { process };
