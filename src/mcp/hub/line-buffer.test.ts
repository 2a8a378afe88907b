/** Unit tests of the growing line buffer and the collection after a huge line. */
import { describe, expect, it } from 'vitest';
import { HUGE_LINE_CHARS, LineBuffer, releaseHugeLine } from './line-buffer.js';

describe('LineBuffer', () => {
  it('keeps every byte across growths, multi-byte characters split between parts included, and drops a trailing CR', () => {
    const buffer = new LineBuffer();
    const text = `${'é—'.repeat(40_000)}end\r`;
    const bytes = Buffer.from(text);
    for (let start = 0; start < bytes.length; start += 1001) buffer.append(bytes.subarray(start, start + 1001));
    expect(buffer.size).toBe(bytes.length);
    expect(buffer.take()).toBe(text.slice(0, -1));
    expect(buffer.size).toBe(0);
  });

  it('starts each line empty: a reused buffer shows nothing of the line before, and clear() forgets', () => {
    const buffer = new LineBuffer();
    buffer.append(Buffer.from('a much longer first line'));
    expect(buffer.take()).toBe('a much longer first line');
    buffer.append(Buffer.from('two'));
    expect(buffer.take()).toBe('two');
    buffer.append(Buffer.from('dropped'));
    buffer.clear();
    buffer.append(Buffer.from('three'));
    expect(buffer.take()).toBe('three');
    expect(buffer.take()).toBe('');
  });

  it('assembles a line past the collection threshold from 64 KiB chunks', () => {
    const buffer = new LineBuffer();
    const chunk = Buffer.alloc(64 * 1024, 'b');
    const chunks = Math.ceil(HUGE_LINE_CHARS / chunk.length) + 1;
    for (let index = 0; index < chunks; index += 1) buffer.append(chunk);
    const line = buffer.take();
    expect(line.length).toBe(chunks * chunk.length);
    expect(line.startsWith('bbbb') && line.endsWith('bbbb')).toBe(true);
    releaseHugeLine(line);
    expect(line.length).toBe(chunks * chunk.length);
  });
});
