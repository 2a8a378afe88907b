/**
 * Maps TOML keys to the lines they were written on, because the TOML parser gives no
 * positions. Built from the one TOML walk (`toml-walk.ts`): every `[table]`,
 * `[[array.of.tables]]` and `key =` (dotted keys included) is recorded with its line.
 * Lookups fall back to the closest recorded parent key.
 */
import { walkToml } from './toml-walk.js';

export type KeyPath = readonly (string | number)[];

export interface LineMap {
  /** The line of the key, or of its nearest recorded parent; 1 when nothing matches. */
  lineOf(path: KeyPath): number;
  /** True when exactly this key was recorded. */
  has(path: KeyPath): boolean;
}

const SEPARATOR = '\u001f';
const keyOf = (path: KeyPath): string => path.join(SEPARATOR);

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
  for (const found of walkToml(text)) {
    if (found.kind === 'key') {
      record([...table, ...found.key], found.line);
      continue;
    }
    if (!found.key) continue;
    if (found.array) {
      const prefix = resolve(found.key.slice(0, -1));
      const last = found.key.at(-1)!;
      const arrayKey = keyOf([...prefix, last]);
      const next = (arrayIndex.get(arrayKey) ?? -1) + 1;
      arrayIndex.set(arrayKey, next);
      table = [...prefix, last, next];
    } else {
      table = resolve(found.key);
    }
    record(table, found.line);
  }

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
