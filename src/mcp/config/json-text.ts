/**
 * JSON as text: parsing with line/column in errors, and locating the members of an
 * object by offset so that edits can touch one member and leave every other byte alone.
 */

export type JsonParseResult = { ok: true; value: unknown } | { ok: false; reason: string; line?: number; column?: number };

/** Parses JSON (a leading BOM is allowed); on failure gives the reason and, when known, the position. */
export function parseJsonText(text: string): JsonParseResult {
  try {
    return { ok: true, value: JSON.parse(text.replace(/^\uFEFF/, '')) as unknown };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const lineColumn = /\(line (\d+) column (\d+)\)/.exec(message);
    const position = /at position (\d+)/.exec(message);
    // V8 quotes the start of the text (`Unexpected token 'o', "not json…" is not valid JSON`): a secret could be in it.
    const reason = message
      .replace(/\s*\(line \d+ column \d+\)/, '')
      .replace(/ in JSON at position \d+.*$/s, '')
      .replace(/, ".*\sis not valid JSON$/s, '')
      .trim();
    if (lineColumn) return { ok: false, reason, line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
    if (position) {
      const offset = Number(position[1]) + (text.startsWith('\uFEFF') ? 1 : 0);
      const before = text.slice(0, offset);
      const line = before.split('\n').length;
      const column = offset - (before.lastIndexOf('\n') + 1) + 1;
      return { ok: false, reason, line, column };
    }
    return { ok: false, reason };
  }
}

/** `line 3, column 5: Expected …` or just the reason when the parser gave no position. */
export function describeJsonError(result: { reason: string; line?: number; column?: number }): string {
  return result.line === undefined ? result.reason : `line ${result.line}, column ${result.column ?? 1}: ${result.reason}`;
}

export interface JsonMember {
  key: string;
  keyStart: number;
  valueStart: number;
  /** Offset just after the value. */
  valueEnd: number;
}

export interface JsonObjectSpan {
  /** Offset of `{`. */
  start: number;
  /** Offset just after `}`. */
  end: number;
  members: JsonMember[];
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r', '\uFEFF']);

export function skipWhitespace(text: string, index: number): number {
  let i = index;
  while (i < text.length && WHITESPACE.has(text[i]!)) i++;
  return i;
}

function skipString(text: string, index: number): number {
  let i = index + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else i++;
  }
  return i;
}

/** Offset just after the value starting at `index` (the text must be valid JSON). */
export function skipValue(text: string, index: number): number {
  const c = text[index];
  if (c === '"') return skipString(text, index);
  if (c === '{' || c === '[') {
    let depth = 0;
    let i = index;
    while (i < text.length) {
      const d = text[i];
      if (d === '"') {
        i = skipString(text, i);
        continue;
      }
      if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return i;
  }
  let i = index;
  while (i < text.length && !WHITESPACE.has(text[i]!) && text[i] !== ',' && text[i] !== '}' && text[i] !== ']') i++;
  return i;
}

/** The members of the object whose `{` is at `start` (the text must be valid JSON). */
export function scanObject(text: string, start: number): JsonObjectSpan {
  const members: JsonMember[] = [];
  let i = skipWhitespace(text, start + 1);
  while (i < text.length && text[i] !== '}') {
    const keyStart = i;
    const keyEnd = skipString(text, i);
    const key = JSON.parse(text.slice(keyStart, keyEnd)) as string;
    i = skipWhitespace(text, keyEnd) + 1; // past ':'
    const valueStart = skipWhitespace(text, i);
    const valueEnd = skipValue(text, valueStart);
    members.push({ key, keyStart, valueStart, valueEnd });
    i = skipWhitespace(text, valueEnd);
    if (text[i] === ',') i = skipWhitespace(text, i + 1);
  }
  return { start, end: i + 1, members };
}

/** The whitespace before `offset` on its line, or `undefined` when other text precedes it. */
export function lineIndent(text: string, offset: number): string | undefined {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const before = text.slice(lineStart, offset);
  return /^[ \t]*$/.test(before) ? before : undefined;
}

/** The file's indentation unit: the leading whitespace of its first indented line (default two spaces). */
export function detectIndent(text: string): string {
  const match = /\n([ \t]+)\S/.exec(text);
  return match ? match[1]! : '  ';
}
