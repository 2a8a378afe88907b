/** Unit tests of the line splitter and the stderr tail. */
import { describe, expect, it } from 'vitest';
import { LineReader, LineTail } from './line-reader.js';

describe('LineReader', () => {
  it('splits chunks into lines, across chunk boundaries, dropping \\r', () => {
    const lines: string[] = [];
    const reader = new LineReader((line) => lines.push(line), { maxLineBytes: 1000 });
    reader.push(Buffer.from('one\ntw'));
    reader.push(Buffer.from('o\r\nthr'));
    reader.push(Buffer.from('ee'));
    expect(lines).toEqual(['one', 'two']);
    reader.end();
    expect(lines).toEqual(['one', 'two', 'three']);
  });

  it('keeps multi-byte characters split across chunks intact', () => {
    const lines: string[] = [];
    const reader = new LineReader((line) => lines.push(line), { maxLineBytes: 1000 });
    const bytes = Buffer.from('héllo\n');
    reader.push(bytes.subarray(0, 2));
    reader.push(bytes.subarray(2));
    expect(lines).toEqual(['héllo']);
  });

  it('drops a line over the limit whole and goes on with the next', () => {
    const lines: string[] = [];
    const oversize: number[] = [];
    const reader = new LineReader((line) => lines.push(line), { maxLineBytes: 8, onOversize: (bytes) => oversize.push(bytes) });
    reader.push(Buffer.from('short\n0123456'));
    reader.push(Buffer.from('789abc\nnext\n'));
    expect(lines).toEqual(['short', 'next']);
    expect(oversize).toEqual([13]);
  });

  it('reads many whole lines from one chunk: empty ones, \r\n endings and an oversize one', () => {
    const lines: string[] = [];
    const oversize: number[] = [];
    const reader = new LineReader((line) => lines.push(line), { maxLineBytes: 8, onOversize: (bytes) => oversize.push(bytes) });
    reader.push(Buffer.from('a\r\n\nbé\n0123456789\nlast\npart'));
    expect(lines).toEqual(['a', '', 'bé', 'last']);
    expect(oversize).toEqual([10]);
    reader.push(Buffer.from('ial\n'));
    expect(lines.at(-1)).toBe('partial');
  });

  it('assembles a large line from many chunks', () => {
    const lines: string[] = [];
    const reader = new LineReader((line) => lines.push(line), { maxLineBytes: 10 * 1024 * 1024 });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    for (let index = 0; index < 80; index += 1) reader.push(chunk);
    reader.push(Buffer.from('\n'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toHaveLength(80 * 64 * 1024);
  });
});

describe('LineTail', () => {
  it('keeps the last lines, each cut to a maximum length', () => {
    const tail = new LineTail(2, 5);
    for (const line of ['a', 'b', 'c123456789']) tail.add(line);
    expect(tail.lines()).toEqual(['b', 'c1234…']);
  });
});
