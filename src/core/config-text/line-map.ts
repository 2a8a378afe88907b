/**
 * Maps TOML keys to the lines they were written on, because the TOML parser gives no
 * positions. A line scanner records every `[table]`, `[[array.of.tables]]` and `key =`
 * (dotted keys included); multi-line strings and multi-line arrays/inline tables are
 * skipped over. Lookups fall back to the closest recorded parent key.
 */
import { readDottedKey } from './toml-key.js';

export type KeyPath = readonly (string | number)[];

export interface LineMap {
  /** The line of the key, or of its nearest recorded parent; 1 when nothing matches. */
  lineOf(path: KeyPath): number;
  /** True when exactly this key was recorded. */
  has(path: KeyPath): boolean;
}

const SEPARATOR = '\u001f';
const keyOf = (path: KeyPath): string => path.join(SEPARATOR);

interface ValueScan {
  /** Change of bracket depth (`[`/`{` minus `]`/`}`) outside strings. */
  depth: number;
  /** The delimiter of a multi-line string still open at the end of the line. */
  openString?: '"""' | "'''";
}

/** Scans a value's text up to a comment, counting brackets outside strings. */
function scanValue(text: string, startInString?: '"""' | "'''"): ValueScan {
  let depth = 0;
  let i = 0;
  if (startInString) {
    const end = text.indexOf(startInString);
    if (end < 0) return { depth: 0, openString: startInString };
    i = end + 3;
  }
  while (i < text.length) {
    const char = text[i]!;
    if (char === '#') break;
    if (text.startsWith('"""', i) || text.startsWith("'''", i)) {
      const delimiter = text.slice(i, i + 3) as '"""' | "'''";
      const end = text.indexOf(delimiter, i + 3);
      if (end < 0) return { depth, openString: delimiter };
      i = end + 3;
      continue;
    }
    if (char === '"' || char === "'") {
      i++;
      while (i < text.length && text[i] !== char) i += char === '"' && text[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (char === '[' || char === '{') depth++;
    if (char === ']' || char === '}') depth--;
    i++;
  }
  return { depth };
}

export function buildLineMap(text: string): LineMap {
  const lines = new Map<string, number>();
  const arrayIndex = new Map<string, number>();
  const record = (path: KeyPath, line: number) => {
    for (let n = 1; n <= path.length; n++) {
      const key = keyOf(path.slice(0, n));
      if (!lines.has(key)) lines.set(key, line);
    }
  };
  /** Inserts the current element index after every prefix that is an array of tables. */
  const resolve = (parts: string[]): (string | number)[] => {
    const out: (string | number)[] = [];
    for (const part of parts) {
      out.push(part);
      const index = arrayIndex.get(keyOf(out));
      if (index !== undefined) out.push(index);
    }
    return out;
  };

  let table: (string | number)[] = [];
  let depth = 0;
  let openString: '"""' | "'''" | undefined;
  text.split(/\r?\n/).forEach((raw, index) => {
    const lineNumber = index + 1;
    if (openString || depth > 0) {
      const scan = scanValue(raw, openString);
      openString = scan.openString;
      depth += scan.depth;
      return;
    }
    const line = raw.trimStart();
    if (line.startsWith('[[')) {
      const key = readDottedKey(line, 2);
      if (!key) return;
      const prefix = resolve(key.parts.slice(0, -1));
      const arrayKey = keyOf([...prefix, key.parts.at(-1)!]);
      const next = (arrayIndex.get(arrayKey) ?? -1) + 1;
      arrayIndex.set(arrayKey, next);
      table = [...prefix, key.parts.at(-1)!, next];
      record(table, lineNumber);
      return;
    }
    if (line.startsWith('[')) {
      const key = readDottedKey(line, 1);
      if (!key) return;
      table = resolve(key.parts);
      record(table, lineNumber);
      return;
    }
    const key = readDottedKey(line, 0);
    if (!key || line[key.end] !== '=') return;
    record([...table, ...key.parts], lineNumber);
    const scan = scanValue(line.slice(key.end + 1));
    openString = scan.openString;
    depth = Math.max(0, scan.depth);
  });

  return {
    lineOf(path) {
      for (let n = path.length; n > 0; n--) {
        const line = lines.get(keyOf(path.slice(0, n)));
        if (line !== undefined) return line;
      }
      return 1;
    },
    has(path) {
      return lines.has(keyOf(path));
    },
  };
}
