import { afterEach, describe, expect, it } from 'vitest';
import { DefaultJsonSchemaValidator } from './sdk-shims.js';

const SCHEMA = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };

describe('the SDK shim validator', () => {
  afterEach(() => {
    delete process.env.WEFT_MCP_FAST_PATH;
  });

  it('answers like the SDK validator: data when valid, a message naming the path when not', () => {
    const check = new DefaultJsonSchemaValidator().getValidator(SCHEMA);
    expect(check({ n: 3 })).toEqual({ valid: true, data: { n: 3 }, errorMessage: undefined });
    expect(check({ n: 'x' })).toEqual({ valid: false, data: undefined, errorMessage: '/n: must be integer' });
  });

  it("with the fast path off, hands the schema to the SDK's own validator", () => {
    process.env.WEFT_MCP_FAST_PATH = '0';
    const check = new DefaultJsonSchemaValidator().getValidator(SCHEMA);
    expect(check({ n: 3 })).toEqual({ valid: true, data: { n: 3 }, errorMessage: undefined });
    const refused = check({ n: 'x' });
    expect(refused.valid).toBe(false);
    // The SDK words its refusal its own way (ajv's errorsText), not weft's `/n: …`.
    expect(refused.errorMessage).toContain('data/n must be integer');
  });
});
