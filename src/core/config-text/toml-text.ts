/**
 * TOML as text: cuts tables out of a file by the offsets of their headers (from the one
 * TOML walk, `toml-walk.ts`), so one table's lines can be removed while every other byte
 * of the file stays as it was.
 */
import { walkToml, type TomlHeaderLine } from './toml-walk.js';

export type TomlHeader = TomlHeaderLine;

/** Every table header of the file, in order. */
export function findTableHeaders(text: string): TomlHeader[] {
  return walkToml(text).filter((found): found is TomlHeaderLine => found.kind === 'header');
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
