import { describe, expect, it } from 'vitest';
import { goalPreview, truncateStrings } from './run-view.js';

describe('run views', () => {
  it('cuts long strings anywhere in a payload and says so', () => {
    expect(truncateStrings({ a: 'x'.repeat(30), b: [1, 'short', { c: 'y'.repeat(25) }], d: null }, 20)).toEqual({
      value: { a: `${'x'.repeat(20)}…[10 more characters]`, b: [1, 'short', { c: `${'y'.repeat(20)}…[5 more characters]` }], d: null },
      truncated: true,
    });
    expect(truncateStrings({ a: 'short' }, 20)).toEqual({ value: { a: 'short' }, truncated: false });
  });

  it('previews a goal by its first line, at most 120 characters', () => {
    expect(goalPreview('  Ship   it\nwith details')).toBe('Ship it');
    expect(goalPreview('z'.repeat(200))).toBe(`${'z'.repeat(119)}…`);
  });
});
