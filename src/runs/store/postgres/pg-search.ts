/**
 * A run search as one PostgreSQL query: every filter is a condition on `runs` (labels
 * through the GIN index on the `labels` column), newest first, one row more than the page
 * to know whether another page follows. PostgreSQL's planner picks the index; a status
 * filter becomes one ordered branch per status (UNION ALL), because `status = ANY(…)`
 * cannot walk the status index in `created_at` order and so made the planner collect
 * every match in range and sort it.
 */
import type { NormalizedFilter } from '../store-input.js';
import { RUN_COLUMNS } from './pg-run-rows.js';

export function pgSearchSql(filter: NormalizedFilter): { sql: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (condition: (placeholder: () => string) => string, ...values: unknown[]) => {
    let index = 0;
    where.push(
      condition(() => {
        params.push(values[index]);
        index += 1;
        return `$${params.length}`;
      }),
    );
  };
  if (filter.ids !== undefined) add((p) => `id = ANY(${p()}::text[])`, filter.ids);
  if (filter.parentId !== undefined) add((p) => `parent_id = ${p()}`, filter.parentId);
  if (filter.workflow !== undefined) add((p) => `workflow = ${p()}`, filter.workflow);
  if (filter.labels.length > 0) add((p) => `labels @> ${p()}::jsonb`, JSON.stringify(Object.fromEntries(filter.labels)));
  if (filter.archived !== 'any') add((p) => `archived = ${p()}`, filter.archived ? 1 : 0);
  if (filter.createdAfter !== undefined) add((p) => `created_at > ${p()}`, filter.createdAfter);
  if (filter.createdBefore !== undefined) add((p) => `created_at < ${p()}`, filter.createdBefore);
  if (filter.cursor !== undefined) add((p) => `(created_at, id) < (${p()}, ${p()})`, filter.cursor.createdAt, filter.cursor.id);
  params.push(filter.limit + 1);
  const limit = `$${params.length}`;
  const order = `ORDER BY created_at DESC, id DESC LIMIT ${limit}`;
  // An empty status list matches no run.
  if (filter.status?.length === 0) where.push('FALSE');
  if (filter.status === undefined || filter.status.length === 0)
    return { sql: `SELECT ${RUN_COLUMNS} FROM runs ${whereClause(where)} ${order}`, params };
  // One branch per status, each walking the status index newest first and stopping at the page's end; the merge never sorts more than a page per status.
  const branches = filter.status.map((status) => {
    params.push(status);
    return `(SELECT ${RUN_COLUMNS}, created_at, id FROM runs ${whereClause([`status = $${params.length}`, ...where])} ${order})`;
  });
  return { sql: `SELECT ${RUN_COLUMNS} FROM (${branches.join(' UNION ALL ')}) AS page ${order}`, params };
}

function whereClause(conditions: readonly string[]): string {
  return conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
}
