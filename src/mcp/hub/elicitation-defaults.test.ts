/** Unit tests of `applyElicitationDefaults`: SEP-1034 defaults for omitted elicitation fields. */
import { describe, expect, it } from 'vitest';
import { applyElicitationDefaults, type ElicitationSchema } from './elicitation-defaults.js';

const schema: ElicitationSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', default: true },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, default: ['a', 'c'] },
    nickname: { type: 'string' },
  },
  required: [],
};

describe('applyElicitationDefaults', () => {
  it('fills every field that declares a default, of each primitive kind', () => {
    expect(applyElicitationDefaults(schema)).toEqual({
      name: 'John Doe',
      age: 30,
      score: 95.5,
      status: 'active',
      verified: true,
      tags: ['a', 'c'],
    });
  });

  it('leaves fields without a default absent', () => {
    expect(applyElicitationDefaults(schema)).not.toHaveProperty('nickname');
  });

  it('keeps the answers given, including falsy ones, and defaults only the omitted fields', () => {
    const filled = applyElicitationDefaults(schema, { name: '', verified: false, nickname: 'JD' });
    expect(filled).toEqual({ name: '', age: 30, score: 95.5, status: 'active', verified: false, tags: ['a', 'c'], nickname: 'JD' });
  });

  it("neither mutates the given content nor shares the schema's default arrays", () => {
    const given = { name: 'Ada' };
    const filled = applyElicitationDefaults(schema, given);
    expect(given).toEqual({ name: 'Ada' });
    const tags = filled.tags;
    expect(Array.isArray(tags)).toBe(true);
    if (Array.isArray(tags)) tags.push('b');
    expect(applyElicitationDefaults(schema).tags).toEqual(['a', 'c']);
  });

  it('returns an empty answer for a schema without properties', () => {
    expect(applyElicitationDefaults({ type: 'object', properties: {} })).toEqual({});
  });
});
