import { describe, expect, it } from 'vitest';
import { readDottedKey } from './toml-key.js';

describe('readDottedKey', () => {
  it('reads bare and quoted parts around blanks and dots, and stops after the key', () => {
    expect(readDottedKey('a . "b.c" . \'d e\' = 1', 0)).toEqual({ parts: ['a', 'b.c', 'd e'], end: 18 });
    expect(readDottedKey('[mcp.servers."my \\"x\\""]', 1)).toEqual({ parts: ['mcp', 'servers', 'my "x"'], end: 23 });
  });

  it('finds no key in text that does not start with one, or whose quote does not close on its line', () => {
    expect(readDottedKey('= 1', 0)).toBeUndefined();
    expect(readDottedKey('a. = 1', 0)).toBeUndefined();
    expect(readDottedKey('"open\n" = 1', 0)).toBeUndefined();
  });
});
