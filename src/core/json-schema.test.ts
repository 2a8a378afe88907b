import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { checkAgainstSchema, compileSchema, type JsonSchema } from './json-schema.js';

const echoSchema = (): JsonSchema => ({
  type: 'object',
  properties: { message: { type: 'string' } },
  required: ['message'],
  additionalProperties: false,
});

/** A schema no other test compiles, so each one costs a real compilation. */
const distinctSchema = (index: number): JsonSchema => ({ ...echoSchema(), title: `distinct ${index}` });

function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('compileSchema', () => {
  it('gives equal schemas in fresh objects one validator, as each run hands over its own copy', () => {
    expect(compileSchema(echoSchema())).toBe(compileSchema(echoSchema()));
  });

  it('keeps validators working after the ajv instance that made them is replaced', () => {
    const first = compileSchema(distinctSchema(-1));
    for (let index = 0; index < 600; index++) compileSchema(distinctSchema(index));
    expect(first({ message: 'hi' })).toBe(true);
    expect(first({ message: 3 })).toBe(false);
    expect(checkAgainstSchema(distinctSchema(-1), {}).problems).toEqual(['message: is required']);
  });

  it('compiles two different schemas that share an $id, which ajv alone refuses', () => {
    const strict = compileSchema({ $id: 'https://example.test/twice', type: 'string' });
    const loose = compileSchema({ $id: 'https://example.test/twice', type: 'number' });
    expect([strict('a'), loose(1), loose('a')]).toEqual([true, true, false]);
  });

  it('lets go of a schema once it has left the cache: a long-lived server does not grow per run', async () => {
    const gone = ((schema: JsonSchema) => {
      compileSchema(schema);
      return new WeakRef(schema);
    })(distinctSchema(-2));
    for (let index = 1000; index < 1800; index++) compileSchema(distinctSchema(index));
    // A WeakRef target stays alive until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(gone.deref()).toBeUndefined();
  });
});
