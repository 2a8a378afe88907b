/**
 * `[run.concurrency]` in a settings file: the concurrency keys of runs whose workflow sets
 * none (the workflow's own `[run.concurrency]` wins whole). The same shape as in a
 * workflow — one table or `[[run.concurrency]]` tables of `key` (a template over
 * `inputs.*` and `run.goal`) and `limit` (default 1) — checked here for what a settings
 * file alone can tell; the template is checked against each workflow's inputs when a run
 * is created (`runs/workflow/concurrency-keys.ts`).
 */

/** One key as written: its template and limit. */
export interface ConcurrencyKeySetting {
  key: string;
  limit: number;
}

/** The keys of one settings file, with the file they come from (for messages). */
export interface ConcurrencyDefaults {
  keys: ConcurrencyKeySetting[];
  file: string;
}

/** Mirrors `runs/model/run-concurrency.ts` (core may not import it). */
const MAX_KEYS = 8;
const MAX_LIMIT = 10_000;
const EXAMPLE =
  'write [run.concurrency] with key = "repo:{{ inputs.repo }}" and limit = 1 (or [[run.concurrency]] tables for several keys)';

/** Reads `[run.concurrency]` of one settings file; `problems` name the table and field. */
export function readConcurrencySetting(value: unknown): { keys?: ConcurrencyKeySetting[]; problems: string[] } {
  if (value === undefined) return { problems: [] };
  const tables = Array.isArray(value) ? value : [value];
  if (tables.length === 0 || tables.length > MAX_KEYS)
    return { problems: [`[run.concurrency]: give from 1 to ${MAX_KEYS} keys, got ${tables.length} — ${EXAMPLE}`] };
  const problems: string[] = [];
  const keys: ConcurrencyKeySetting[] = [];
  tables.forEach((table: unknown, index) => {
    const where = Array.isArray(value) ? `[[run.concurrency]] #${index + 1}` : '[run.concurrency]';
    if (table === null || typeof table !== 'object' || Array.isArray(table)) {
      problems.push(`${where} must be a table — ${EXAMPLE}`);
      return;
    }
    const fields = table as Record<string, unknown>;
    for (const name of Object.keys(fields))
      if (name !== 'key' && name !== 'limit') problems.push(`${where}: unknown key '${name}' (known keys: key, limit)`);
    const { key, limit = 1 } = fields;
    if (typeof key !== 'string' || key.trim() === '')
      problems.push(`${where}: 'key' must be a non-empty string such as "repo:{{ inputs.repo }}"`);
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
      problems.push(`${where}: 'limit' must be an integer between 1 and ${MAX_LIMIT}, not ${JSON.stringify(limit)}`);
    else if (typeof key === 'string' && key.trim() !== '') keys.push({ key, limit });
  });
  return problems.length > 0 ? { problems } : { keys, problems };
}
