/**
 * Reads a TOML dotted key (`a . "b.c" . d`) from text, for the scanners that need what the
 * TOML parser does not give: the line a key was written on (workflow files) and where a
 * table starts (editing settings without touching other bytes).
 */

const BARE_KEY = /[A-Za-z0-9_-]+/y;

function skipBlanks(text: string, index: number): number {
  let i = index;
  while (text[i] === ' ' || text[i] === '\t') i++;
  return i;
}

/** The offset of the quote closing the one-line string opened at `start`, or -1. */
function closingQuote(text: string, start: number): number {
  const quote = text[start];
  let i = start + 1;
  while (i < text.length && text[i] !== '\n') {
    if (text[i] === quote) return i;
    i += quote === '"' && text[i] === '\\' ? 2 : 1;
  }
  return -1;
}

function unquote(quoted: string): string {
  if (quoted.startsWith("'")) return quoted.slice(1, -1);
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted.slice(1, -1);
  }
}

/**
 * The key's parts, unquoted, and the offset after it (blanks skipped); undefined when no
 * whole key starts at `start`.
 * @example readDottedKey('a . "b.c" = 1', 0) // → { parts: ['a', 'b.c'], end: 10 }
 */
export function readDottedKey(text: string, start: number): { parts: string[]; end: number } | undefined {
  const parts: string[] = [];
  let i = start;
  for (;;) {
    i = skipBlanks(text, i);
    const char = text[i];
    if (char === '"' || char === "'") {
      const end = closingQuote(text, i);
      if (end < 0) return undefined;
      parts.push(unquote(text.slice(i, end + 1)));
      i = end + 1;
    } else {
      BARE_KEY.lastIndex = i;
      const match = BARE_KEY.exec(text);
      if (!match) return undefined;
      parts.push(match[0]);
      i += match[0].length;
    }
    i = skipBlanks(text, i);
    if (text[i] !== '.') return { parts, end: i };
    i++;
  }
}
