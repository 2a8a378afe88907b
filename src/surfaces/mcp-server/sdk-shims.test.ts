import { describe, expect, it } from 'vitest';
import { DefaultJsonSchemaValidator } from './sdk-shims.js';

describe('the SDK shim validator', () => {
  it('answers like the SDK validator: data when valid, a message naming the path when not', () => {
    const check = new DefaultJsonSchemaValidator().getValidator({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });
    expect(check({ n: 3 })).toEqual({ valid: true, data: { n: 3 }, errorMessage: undefined });
    expect(check({ n: 'x' })).toEqual({ valid: false, data: undefined, errorMessage: '/n: must be integer' });
  });
});
