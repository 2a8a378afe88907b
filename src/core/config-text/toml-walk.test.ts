/**
 * The one TOML walk: header offsets for edits and lines for keys agree, and nothing inside
 * strings or multi-line values is taken for a header or a key.
 */
import { describe, expect, it } from 'vitest';
import { walkToml } from './toml-walk.js';

const TEXT = ['a = """', '[not.a.header]', 'b = 1', '"""', '[real] # c', "k = ['x',", "  '[no]' ]", '[[list]]', 'z = { y = "]" }'].join(
  '\n',
);

describe('walkToml', () => {
  const found = walkToml(TEXT);

  it('reports headers and keys in order with their lines, skipping string and value contents', () => {
    expect(found.map((item) => [item.kind, item.key?.join('.'), item.line])).toEqual([
      ['key', 'a', 1],
      ['header', 'real', 5],
      ['key', 'k', 6],
      ['header', 'list', 8],
      ['key', 'z', 9],
    ]);
  });

  it('gives a header the offsets of its own line and of the next one', () => {
    const real = found.find((item) => item.kind === 'header' && item.key?.[0] === 'real');
    expect(real?.kind === 'header' && TEXT.slice(real.lineStart, real.nextLineStart)).toBe('[real] # c\n');
    const list = found.find((item) => item.kind === 'header' && item.array);
    expect(list?.kind === 'header' && TEXT.slice(list.lineStart, list.nextLineStart)).toBe('[[list]]\n');
  });
});
