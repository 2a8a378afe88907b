/**
 * The line scanner: headers, arrays of tables, dotted and quoted keys, and values spanning
 * lines that must not be mistaken for keys.
 */
import { describe, expect, it } from 'vitest';
import { buildLineMap } from './line-map.js';

const TEXT = [
  '# comment = 1', // 1
  'top = 1 # trailing', // 2
  '[nodes.a]', // 3
  'kind = "command"', // 4
  'run = """', // 5
  'fake = 2', // 6
  '[nodes.fake]', // 7
  '"""', // 8
  'matrix = [', // 9
  '  [1, 2],', // 10
  '  ["[nodes.b]", { y = "]" }],', // 11
  ']', // 12
  'after = true', // 13
  '[[nodes.a.edges]]', // 14
  'to = "b"', // 15
  '[[nodes.a.edges]]', // 16
  '  when = \'status == "x"\'', // 17
  '[ nodes . "b c" ]', // 18
  'env.HOME = "/h"', // 19
  "literal = '''", // 20
  "x = '", // 21
  "'''", // 22
  'last = 1', // 23
].join('\n');

describe('buildLineMap', () => {
  const lines = buildLineMap(TEXT);

  it('maps tables, keys and array-of-table elements to their lines', () => {
    expect(lines.lineOf(['top'])).toBe(2);
    expect(lines.lineOf(['nodes', 'a'])).toBe(3);
    expect(lines.lineOf(['nodes', 'a', 'kind'])).toBe(4);
    expect(lines.lineOf(['nodes', 'a', 'run'])).toBe(5);
    expect(lines.lineOf(['nodes', 'a', 'matrix'])).toBe(9);
    expect(lines.lineOf(['nodes', 'a', 'after'])).toBe(13);
    expect(lines.lineOf(['nodes', 'a', 'edges', 0])).toBe(14);
    expect(lines.lineOf(['nodes', 'a', 'edges', 0, 'to'])).toBe(15);
    expect(lines.lineOf(['nodes', 'a', 'edges', 1])).toBe(16);
    expect(lines.lineOf(['nodes', 'a', 'edges', 1, 'when'])).toBe(17);
    expect(lines.lineOf(['nodes', 'b c'])).toBe(18);
    expect(lines.lineOf(['nodes', 'b c', 'env', 'HOME'])).toBe(19);
    expect(lines.lineOf(['nodes', 'b c', 'last'])).toBe(23);
  });

  it('does not record keys inside multi-line strings and values', () => {
    expect(lines.has(['nodes', 'a', 'fake'])).toBe(false);
    expect(lines.has(['nodes', 'fake'])).toBe(false);
    expect(lines.has(['nodes', 'b'])).toBe(false);
    expect(lines.has(['1'])).toBe(false);
    expect(lines.has(['nodes', 'b c', 'x'])).toBe(false);
    expect(lines.has(['comment'])).toBe(false);
  });

  it('falls back to the nearest recorded parent, then to line 1', () => {
    expect(lines.lineOf(['nodes', 'a', 'matrix', 1, 0])).toBe(9);
    expect(lines.lineOf(['nodes', 'a', 'edges', 1, 'weight'])).toBe(16);
    expect(lines.lineOf(['nowhere'])).toBe(1);
  });
});
