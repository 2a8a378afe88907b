/**
 * Maps the keys of one config table (a server entry, its `oauth` table) to the fields weft
 * knows, the same way for each: an unknown key is an error in weft's TOML and a warning in
 * `.mcp.json`-style files (other clients keep their own settings there), both with a "did
 * you mean"; a second spelling of a field already given is an error.
 */
import { closest } from '../../core/config-text/did-you-mean.js';
import type { RawField } from './field-readers.js';
import { fieldProblem, type FileContext, type McpConfigProblem } from './problems.js';

export interface KnownKeys<F extends string> {
  /** The field a key names in this file's format, or undefined for an unknown key. */
  fieldOf(key: string): F | undefined;
  /** Every key a "did you mean" may suggest in this file's format. */
  suggestions: readonly string[];
  /** The keys listed when a TOML key is unknown and nothing is close. */
  tomlKeys: readonly string[];
  /** Put before each key in messages, e.g. `oauth.` */
  prefix?: string;
}

/** The table's fields by the field they name, with the key as written; problems go to `problems`. */
export function collectKnownKeys<F extends string>(
  ctx: FileContext,
  server: string,
  table: Record<string, unknown>,
  known: KnownKeys<F>,
  problems: McpConfigProblem[],
): Map<F, RawField> {
  const fields = new Map<F, RawField>();
  const prefix = known.prefix ?? '';
  for (const [key, value] of Object.entries(table)) {
    if (value === undefined) continue;
    const path = prefix + key;
    const field = known.fieldOf(key);
    if (!field) {
      const guess = closest(key, known.suggestions);
      if (ctx.format === 'json') {
        const fix = guess ? `did you mean '${guess}'? Otherwise remove it` : 'remove it if it is a misspelling';
        problems.push(fieldProblem(ctx, server, path, 'is not used by weft and was ignored', fix, 'warning'));
      } else {
        const fix = guess ? `did you mean '${guess}'?` : `remove it (known fields: ${known.tomlKeys.join(', ')})`;
        problems.push(fieldProblem(ctx, server, path, 'is not a known field', fix));
      }
      continue;
    }
    const prior = fields.get(field);
    if (prior) {
      problems.push(fieldProblem(ctx, server, path, `duplicates '${prefix}${prior.key}'`, 'keep only one of them'));
      continue;
    }
    fields.set(field, { key, value });
  }
  return fields;
}
