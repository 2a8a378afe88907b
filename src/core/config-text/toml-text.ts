/**
 * TOML as text: finds table headers (`[a.b]`, `[[a.b]]`) by offset, skipping strings,
 * comments and multi-line arrays, so one table's lines can be removed while every other
 * byte of the file stays as it was.
 */
import { readDottedKey } from './toml-key.js';

export interface TomlHeader {
  /** Dotted key segments, unquoted; `undefined` when the header could not be read. */
  key: string[] | undefined;
  array: boolean;
  /** Offset where the header's line starts. */
  lineStart: number;
  /** Offset where the line after the header starts. */
  nextLineStart: number;
}

/** Offset just after the string starting at `index` (basic, literal, or their multi-line forms). */
function skipString(text: string, index: number): number {
  const quote = text[index]!;
  const triple = quote.repeat(3);
  if (text.startsWith(triple, index)) {
    let i = index + 3;
    while (i < text.length) {
      if (quote === '"' && text[i] === '\\') i += 2;
      else if (text.startsWith(triple, i)) {
        i += 3;
        // Up to two quotes may end the content right before the closing delimiter.
        for (let extra = 0; extra < 2 && text[i] === quote; extra++) i++;
        return i;
      } else i++;
    }
    return i;
  }
  let i = index + 1;
  while (i < text.length && text[i] !== '\n') {
    if (quote === '"' && text[i] === '\\') i += 2;
    else if (text[i] === quote) return i + 1;
    else i++;
  }
  return i;
}

/** Reads the dotted key of a header starting at `[`; returns the segments and the offset after `]`/`]]`. */
function readHeader(text: string, index: number): { key: string[] | undefined; array: boolean; end: number } {
  const array = text[index + 1] === '[';
  const start = index + (array ? 2 : 1);
  const key = readDottedKey(text, start);
  const close = array ? ']]' : ']';
  if (!key || !text.startsWith(close, key.end)) return { key: undefined, array, end: key?.end ?? start };
  return { key: key.parts, array, end: key.end + close.length };
}

/** Every table header of the file, in order. */
export function findTableHeaders(text: string): TomlHeader[] {
  const headers: TomlHeader[] = [];
  let depth = 0;
  let lineStart = 0;
  let lineHasContent = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      i++;
      lineStart = i;
      lineHasContent = false;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '[' && depth === 0 && !lineHasContent) {
      const header = readHeader(text, i);
      const newline = text.indexOf('\n', header.end);
      const nextLineStart = newline < 0 ? text.length : newline + 1;
      headers.push({ key: header.key, array: header.array, lineStart, nextLineStart });
      i = nextLineStart;
      lineStart = i;
    } else {
      lineHasContent = true;
      if (c === '"' || c === "'") i = skipString(text, i);
      else {
        if (c === '[' || c === '{') depth++;
        else if ((c === ']' || c === '}') && depth > 0) depth--;
        i++;
      }
    }
  }
  return headers;
}

function isCommentLine(line: string): boolean {
  return line.trimStart().startsWith('#');
}

/**
 * Removes every table whose key starts with `prefix` (the table and its sub-tables): from
 * its header line up to the next header, leaving to the next table the comment lines
 * directly above it. Returns the text unchanged when nothing matched.
 */
export function removeTables(text: string, prefix: readonly string[]): { text: string; removed: boolean } {
  const headers = findTableHeaders(text);
  const ranges: Array<[number, number]> = [];
  headers.forEach((header, index) => {
    const key = header.key;
    if (!key || key.length < prefix.length || prefix.some((segment, at) => key[at] !== segment)) return;
    const next = headers[index + 1];
    let end = next ? next.lineStart : text.length;
    if (next) {
      while (end > header.nextLineStart) {
        const previousLineStart = text.lastIndexOf('\n', end - 2) + 1;
        if (previousLineStart < header.nextLineStart || !isCommentLine(text.slice(previousLineStart, end))) break;
        end = previousLineStart;
      }
    }
    ranges.push([header.lineStart, end]);
  });
  if (ranges.length === 0) return { text, removed: false };
  let out = text;
  let touchedEnd = false;
  for (const [start, end] of ranges.reverse()) {
    if (end === out.length) touchedEnd = true;
    out = out.slice(0, start) + out.slice(end);
  }
  // A table removed from the end leaves the blank lines that separated it: drop them.
  if (touchedEnd) out = out.replace(/(^|\n)(?:[ \t]*\r?\n)+$/, '$1');
  return { text: out, removed: true };
}
