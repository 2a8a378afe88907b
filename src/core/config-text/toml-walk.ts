/**
 * The one walk over TOML text, for what the TOML parser does not give: where things were
 * written. It goes through the text once by offset, skipping strings (multi-line ones
 * included), comments and values that span lines, and reports each line that starts a
 * table header (`[a.b]`, `[[a.b]]`) or a key (`a.b = …`). Workflow files use it for the
 * line of a key; settings edits use it to cut a table out and leave every other byte.
 */
import { readDottedKey } from './toml-key.js';

export interface TomlHeaderLine {
  kind: 'header';
  /** Dotted key segments, unquoted; `undefined` when the header could not be read. */
  key: string[] | undefined;
  array: boolean;
  /** 1-based line number. */
  line: number;
  /** Offset where the header's line starts. */
  lineStart: number;
  /** Offset where the line after the header starts. */
  nextLineStart: number;
}

export interface TomlKeyLine {
  kind: 'key';
  /** Dotted key segments as written on the line (relative to the current table). */
  key: string[];
  line: number;
  lineStart: number;
}

export type TomlLine = TomlHeaderLine | TomlKeyLine;

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

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) count++;
  return count;
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

/** Every header and key line of the file, in order. */
export function walkToml(text: string): TomlLine[] {
  const found: TomlLine[] = [];
  let depth = 0;
  let line = 1;
  let lineStart = 0;
  let lineHasContent = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      i++;
      line++;
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
      found.push({ kind: 'header', key: header.key, array: header.array, line, lineStart, nextLineStart });
      i = nextLineStart;
      if (newline >= 0) line++;
      lineStart = i;
    } else if (depth === 0 && !lineHasContent) {
      lineHasContent = true;
      const key = readDottedKey(text, i);
      if (key && text[key.end] === '=') {
        found.push({ kind: 'key', key: key.parts, line, lineStart });
        i = key.end + 1;
      }
      // Not a key: the same character is read again below as part of a value.
    } else {
      lineHasContent = true;
      if (c === '"' || c === "'") {
        const end = skipString(text, i);
        line += countNewlines(text, i, end);
        i = end;
      } else {
        if (c === '[' || c === '{') depth++;
        else if ((c === ']' || c === '}') && depth > 0) depth--;
        i++;
      }
    }
  }
  return found;
}
