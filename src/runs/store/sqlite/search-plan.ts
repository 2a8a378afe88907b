/**
 * Plans a run search. Every page is "newest first, stop after `limit`", so each plan walks
 * one index in `created_at` order and stops early; what matters is which index drives.
 * Candidates are the label (`run_labels` primary key), status, workflow and parent
 * indices; with more than one, a capped count of each candidate's rows in the created
 * range picks the most selective. Several statuses (or archived 'any') become one ordered
 * branch per value, merged by UNION ALL, so no branch ever sorts.
 */
import type { NormalizedFilter } from '../store-input.js';
import { EVENT_HEAD_COLUMNS } from './run-rows.js';

export type SearchDriver = 'ids' | 'parent' | 'label' | 'status' | 'workflow' | 'created';

export interface Sql {
  sql: string;
  params: unknown[];
}

/** Rows a driver may have in range before it counts as "not selective". */
export const ESTIMATE_CAP = 1000;

interface Access {
  from: string;
  where: string[];
  params: unknown[];
  created: string;
  id: string;
}

/** Drivers that narrow the search; `created` is the fallback and `ids` always wins. */
export function driverCandidates(filter: NormalizedFilter): SearchDriver[] {
  if (filter.ids !== undefined) return ['ids'];
  const candidates: SearchDriver[] = [];
  if (filter.parentId !== undefined) candidates.push('parent');
  if (filter.labels.length > 0) candidates.push('label');
  if (filter.status !== undefined) candidates.push('status');
  if (filter.workflow !== undefined) candidates.push('workflow');
  return candidates.length > 0 ? candidates : ['created'];
}

/**
 * Picks the most selective candidate index by capped counts (`count` runs an
 * {@link estimateSql}) when there is a choice; with several labels, the rarest one goes
 * first (it is the one the label index walks).
 */
export function planSearch(query: NormalizedFilter, count: (estimate: Sql) => number): { filter: NormalizedFilter; driver: SearchDriver } {
  let filter = query;
  if (filter.labels.length > 1) {
    const counted = filter.labels.map((label) => ({ label, rows: count(estimateSql('label', { ...filter, labels: [label] })) }));
    filter = { ...filter, labels: counted.sort((a, b) => a.rows - b.rows).map((entry) => entry.label) };
  }
  const candidates = driverCandidates(filter);
  if (candidates.length === 1) return { filter, driver: candidates[0] as SearchDriver };
  let best: { driver: SearchDriver; rows: number } | undefined;
  for (const driver of candidates) {
    const rows = count(estimateSql(driver, filter));
    if (best === undefined || rows < best.rows) best = { driver, rows };
  }
  return { filter, driver: best?.driver ?? 'created' };
}

/** Counts (up to {@link ESTIMATE_CAP}) the index entries a driver would walk. */
export function estimateSql(driver: SearchDriver, filter: NormalizedFilter): Sql {
  const access = driverAccess(driver, filter, undefined);
  const where = [...access.where, ...rangeConditions(filter, access)];
  return {
    sql: `SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${access.from} WHERE ${where.join(' AND ')} LIMIT ${ESTIMATE_CAP})`,
    params: [...access.params, ...rangeParams(filter)],
  };
}

export function searchSql(filter: NormalizedFilter, driver: SearchDriver): Sql {
  const branchValues: (string | number | undefined)[] =
    driver === 'status' ? (filter.status ?? []) : driver === 'created' && filter.archived === 'any' ? [0, 1] : [undefined];
  const branches = branchValues.map((value) => branchSql(filter, driver, value));
  const columns = `s.spec AS spec, r.state AS state, r.lease_owner AS lease_owner, r.lease_expires_at AS lease_expires_at, ${EVENT_HEAD_COLUMNS}`;
  const union =
    branches.length === 1 ? (branches[0] as Sql).sql : branches.map((branch) => `SELECT * FROM (${branch.sql})`).join(' UNION ALL ');
  return {
    sql: `SELECT ${columns} FROM (${union}) m CROSS JOIN runs r ON r.id = m.id CROSS JOIN run_specs s ON s.id = m.id ORDER BY m.created_at DESC, m.id DESC LIMIT ?`,
    params: [...branches.flatMap((branch) => branch.params), filter.limit + 1],
  };
}

function branchSql(filter: NormalizedFilter, driver: SearchDriver, value: string | number | undefined): Sql {
  const access = driverAccess(driver, filter, value);
  const where = [...access.where, ...rangeConditions(filter, access)];
  const params = [...access.params, ...rangeParams(filter)];
  const residual = residualConditions(filter, driver);
  where.push(...residual.where);
  params.push(...residual.params, filter.limit + 1);
  return {
    sql: `SELECT ${access.id} AS id, ${access.created} AS created_at FROM ${access.from} WHERE ${where.join(' AND ')} ORDER BY ${access.created} DESC, ${access.id} DESC LIMIT ?`,
    params,
  };
}

function driverAccess(driver: SearchDriver, filter: NormalizedFilter, value: string | number | undefined): Access {
  const runs = (index: string, where: string, params: unknown[]): Access => ({
    from: `runs r INDEXED BY ${index}`,
    where: [where],
    params,
    created: 'r.created_at',
    id: 'r.id',
  });
  switch (driver) {
    case 'ids':
      return {
        from: 'runs r',
        where: ['r.id IN (SELECT value FROM json_each(?))'],
        params: [JSON.stringify(filter.ids ?? [])],
        created: 'r.created_at',
        id: 'r.id',
      };
    case 'parent':
      return runs('runs_by_parent', 'r.parent_id = ?', [filter.parentId]);
    case 'label': {
      const [key, labelValue] = filter.labels[0] ?? ['', ''];
      return {
        from: 'run_labels l CROSS JOIN runs r ON r.id = l.run_id',
        where: ['l.key = ? AND l.value = ?'],
        params: [key, labelValue],
        created: 'l.created_at',
        id: 'l.run_id',
      };
    }
    case 'status':
      return value === undefined
        ? runs('runs_by_status', 'r.status IN (SELECT value FROM json_each(?))', [JSON.stringify(filter.status ?? [])])
        : runs('runs_by_status', 'r.status = ?', [value]);
    case 'workflow':
      return runs('runs_by_workflow', 'r.workflow = ?', [filter.workflow]);
    case 'created':
      return runs('runs_by_created', 'r.archived = ?', [value ?? (filter.archived === true ? 1 : 0)]);
    default: {
      const unknown: never = driver;
      throw new Error(`unknown search driver ${String(unknown)}`);
    }
  }
}

function rangeConditions(filter: NormalizedFilter, access: Access): string[] {
  const where: string[] = [];
  if (filter.createdAfter !== undefined) where.push(`${access.created} > ?`);
  if (filter.createdBefore !== undefined) where.push(`${access.created} < ?`);
  if (filter.cursor !== undefined) where.push(`(${access.created}, ${access.id}) < (?, ?)`);
  return where;
}

function rangeParams(filter: NormalizedFilter): unknown[] {
  return [
    ...(filter.createdAfter === undefined ? [] : [filter.createdAfter]),
    ...(filter.createdBefore === undefined ? [] : [filter.createdBefore]),
    ...(filter.cursor === undefined ? [] : [filter.cursor.createdAt, filter.cursor.id]),
  ];
}

/** The filters the driving index does not already apply, checked row by row. */
function residualConditions(filter: NormalizedFilter, driver: SearchDriver): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.archived !== 'any' && driver !== 'created') {
    where.push('r.archived = ?');
    params.push(filter.archived ? 1 : 0);
  }
  if (filter.parentId !== undefined && driver !== 'parent') {
    where.push('r.parent_id = ?');
    params.push(filter.parentId);
  }
  if (filter.workflow !== undefined && driver !== 'workflow') {
    where.push('r.workflow = ?');
    params.push(filter.workflow);
  }
  if (filter.status !== undefined && driver !== 'status') {
    where.push('r.status IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(filter.status));
  }
  filter.labels.forEach(([key, value], index) => {
    if (index === 0 && driver === 'label') return;
    where.push('EXISTS (SELECT 1 FROM run_labels x WHERE x.key = ? AND x.value = ? AND x.created_at = r.created_at AND x.run_id = r.id)');
    params.push(key, value);
  });
  return { where, params };
}
