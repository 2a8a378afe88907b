/**
 * One check and one name per kind of config value, whichever file holds it.
 */
import { describe, expect, it } from 'vitest';
import { STRING_ARRAY, STRING_MAP, expectedText, mismatches } from './value-kinds.js';

describe('value kinds', () => {
  it('names each kind the same way, objects in the file’s own syntax', () => {
    expect(expectedText({ kind: 'integer', min: 1 })).toBe('an integer ≥ 1');
    expect(expectedText(STRING_ARRAY)).toBe('an array of strings');
    expect(expectedText(STRING_MAP, 'json')).toBe('an object of strings');
    expect(expectedText(STRING_MAP)).toBe('a table of strings');
    expect(expectedText({ kind: 'string', values: ['a', 'b'] })).toBe('one of "a", "b"');
  });

  it('places each wrong element below its array, map or table', () => {
    expect(mismatches(['a', 2], STRING_ARRAY)).toEqual([{ at: [1], expected: 'a string', value: 2 }]);
    expect(mismatches({ A: 'x', B: true }, STRING_MAP)).toEqual([{ at: ['B'], expected: 'a string', value: true }]);
    const table = { kind: 'table', fields: { port: { kind: 'integer', min: 1, max: 9 } } } as const;
    expect(mismatches({ port: 10, prot: 1 }, table)).toEqual([
      { at: ['port'], expected: 'an integer between 1 and 9', value: 10 },
      { at: ['prot'], expected: '', value: 1, known: ['port'] },
    ]);
  });

  it('marks a string that fails a secret pattern so it is never repeated', () => {
    const url = { kind: 'string', pattern: { test: /^postgres:/, means: 'a PostgreSQL URL', secret: true } } as const;
    expect(mismatches('mysql://u:hunter22@h', url)).toEqual([
      { at: [], expected: 'a PostgreSQL URL', value: 'mysql://u:hunter22@h', secret: true },
    ]);
    expect(mismatches(5, url)[0]?.secret).toBeUndefined();
  });
});
