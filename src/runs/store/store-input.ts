/**
 * Checks and normalises what callers pass to a `RunStore`, shared by every implementation
 * so they refuse the same input with the same error: ids, filters, cursors, event-list
 * options, lease and catalogue arguments, parent links.
 */
import { RUN_EVENT } from '../model/event-types.js';
import { WeftError } from '../../core/errors.js';
import { assertUlid } from '../../core/ids.js';
import { readLabels } from '../model/event-payloads.js';
import { isJsonObject, type JsonObject } from '../model/json.js';
import { type NewRunEvent } from '../model/run-event.js';
import { isRunStatus, isTerminal, RUN_STATUSES, type RunStatus } from '../model/run-status.js';
import {
  EVENT_LIMITS,
  SEARCH_LIMITS,
  type ClaimFilter,
  type CreateRunParams,
  type ListEventsOptions,
  type RunFilter,
  type UpdatedCursor,
  type UpdatedRunsPage,
} from './run-store.js';
import type { RunRecord } from '../model/run-record.js';

export interface SearchCursor {
  createdAt: number;
  id: string;
}

export interface NormalizedFilter {
  ids?: string[];
  parentId?: string;
  workflow?: string;
  labels: [string, string][];
  status?: RunStatus[];
  archived: boolean | 'any';
  createdAfter?: number;
  createdBefore?: number;
  limit: number;
  cursor?: SearchCursor;
}

export interface NormalizedEventQuery {
  afterSeq: number;
  beforeSeq: number;
  types?: string[];
  direction: 'asc' | 'desc';
  limit: number;
}

export const runId = (id: unknown): string => assertUlid(typeof id === 'string' ? id : String(id), 'run id');

export function runNotFound(id: string): WeftError {
  return new WeftError('RUN_NOT_FOUND', `No run ${id} in the store; list runs to find its id.`, { data: { runId: id } });
}

/** The events `createRun` appends: `run-created`, then the move to `initialStatus` if any. */
export function createRunEvents(params: CreateRunParams): NewRunEvent[] {
  if (!isJsonObject(params)) throw new WeftError('RUN_INVALID_PARAMS', 'createRun needs an object { workflow, workflowPath, cwd, … }.');
  const { id: _id, initialStatus, ...payload } = params;
  if (payload.parentId !== undefined) runId(payload.parentId);
  const events: NewRunEvent[] = [{ type: RUN_EVENT.runCreated, payload: payload as unknown as JsonObject }];
  if (initialStatus !== undefined) {
    if (initialStatus !== 'pending' && initialStatus !== 'queued')
      throw new WeftError('RUN_INVALID_PARAMS', `initialStatus must be 'pending' or 'queued', got ${JSON.stringify(initialStatus)}.`);
    events.push({ type: RUN_EVENT.runStatusChanged, payload: { from: 'submitted', to: initialStatus } });
  }
  return events;
}

function timestamp(value: unknown, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new WeftError('RUN_INVALID_PARAMS', `${what} must be a timestamp in epoch milliseconds.`);
  return value;
}

function limit(value: unknown, limits: { default: number; max: number }): number {
  if (value === undefined) return limits.default;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new WeftError('RUN_INVALID_PARAMS', `limit must be a positive integer (at most ${limits.max}), got ${JSON.stringify(value)}.`);
  return Math.min(value, limits.max);
}

export function normalizeFilter(filter: RunFilter = {}): NormalizedFilter {
  if (!isJsonObject(filter)) throw new WeftError('RUN_INVALID_PARAMS', 'The run filter must be an object.');
  const status = filter.status;
  if (status !== undefined && (!Array.isArray(status) || !status.every(isRunStatus))) {
    throw new WeftError('RUN_INVALID_PARAMS', `status must be an array of: ${RUN_STATUSES.join(', ')}.`);
  }
  if (filter.workflow !== undefined && typeof filter.workflow !== 'string')
    throw new WeftError('RUN_INVALID_PARAMS', 'workflow must be a string.');
  if (filter.ids !== undefined && !Array.isArray(filter.ids)) throw new WeftError('RUN_INVALID_PARAMS', 'ids must be an array of run ids.');
  const archived = filter.archived ?? false;
  if (archived !== true && archived !== false && archived !== 'any')
    throw new WeftError('RUN_INVALID_PARAMS', `archived must be true, false or 'any'.`);
  const createdAfter = timestamp(filter.createdAfter, 'createdAfter');
  const createdBefore = timestamp(filter.createdBefore, 'createdBefore');
  return {
    ...(filter.ids === undefined ? {} : { ids: filter.ids.map(runId) }),
    ...(filter.parentId === undefined ? {} : { parentId: runId(filter.parentId) }),
    ...(filter.workflow === undefined ? {} : { workflow: filter.workflow }),
    labels: Object.entries(readLabels(filter.labels, 'labels filter')),
    ...(status === undefined ? {} : { status: [...new Set(status)] }),
    archived,
    ...(createdAfter === undefined ? {} : { createdAfter }),
    ...(createdBefore === undefined ? {} : { createdBefore }),
    limit: limit(filter.limit, SEARCH_LIMITS),
    ...(filter.cursor === undefined ? {} : { cursor: decodeCursor(filter.cursor) }),
  };
}

/** Opaque to callers: the position after the last run of a page. */
/** Checks a `listRunsUpdatedAfter` call; answers the page size. */
export function normalizeUpdatedQuery(after: UpdatedCursor, pageSize: unknown): number {
  if (typeof after?.updatedAt !== 'number' || !Number.isFinite(after.updatedAt) || typeof after.id !== 'string') {
    throw new WeftError(
      'RUN_INVALID_PARAMS',
      `after must be { updatedAt: epoch ms, id: string }, got ${JSON.stringify(after)?.slice(0, 120)}.`,
    );
  }
  return limit(pageSize, SEARCH_LIMITS);
}

/** The page `listRunsUpdatedAfter` answers from `limit + 1` rows in order, with the position of each. */
export function updatedPage<Row>(
  rows: readonly Row[],
  pageSize: number,
  record: (row: Row) => RunRecord,
  position: (row: Row) => UpdatedCursor,
): UpdatedRunsPage {
  const page = rows.slice(0, pageSize);
  const last = page[page.length - 1];
  return rows.length > pageSize && last !== undefined ? { runs: page.map(record), next: position(last) } : { runs: page.map(record) };
}

export function encodeCursor(cursor: SearchCursor): string {
  return Buffer.from(`${cursor.createdAt}.${cursor.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(value: unknown): SearchCursor {
  const text = typeof value === 'string' ? Buffer.from(value, 'base64url').toString('utf8') : '';
  const match = /^(-?\d{1,16})\.([0-9A-HJKMNP-TV-Z]{26})$/.exec(text);
  if (!match)
    throw new WeftError(
      'RUN_INVALID_PARAMS',
      'Invalid cursor: pass the nextCursor of the previous page unchanged, or omit it for the first page.',
    );
  return { createdAt: Number(match[1]), id: match[2] as string };
}

export function normalizeEventQuery(options: ListEventsOptions = {}): NormalizedEventQuery {
  if (!isJsonObject(options)) throw new WeftError('RUN_INVALID_PARAMS', 'The event list options must be an object.');
  const seq = (value: unknown, what: string, fallback: number): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
      throw new WeftError('RUN_INVALID_PARAMS', `${what} must be a non-negative integer.`);
    return value;
  };
  const direction = options.direction ?? 'asc';
  if (direction !== 'asc' && direction !== 'desc') throw new WeftError('RUN_INVALID_PARAMS', `direction must be 'asc' or 'desc'.`);
  const types = options.types;
  if (types !== undefined && (!Array.isArray(types) || !types.every((type) => typeof type === 'string')))
    throw new WeftError('RUN_INVALID_PARAMS', 'types must be an array of event type names.');
  return {
    afterSeq: seq(options.afterSeq, 'afterSeq', 0),
    beforeSeq: seq(options.beforeSeq, 'beforeSeq', Number.MAX_SAFE_INTEGER),
    ...(types === undefined ? {} : { types }),
    direction,
    limit: limit(options.limit, EVENT_LIMITS),
  };
}

export function checkLease(workerId: unknown, leaseMs: unknown): void {
  if (typeof workerId !== 'string' || workerId.length === 0 || workerId.length > 200)
    throw new WeftError('RUN_INVALID_PARAMS', 'workerId must be a non-empty string of at most 200 characters.');
  if (typeof leaseMs !== 'number' || !Number.isSafeInteger(leaseMs) || leaseMs <= 0)
    throw new WeftError('RUN_INVALID_PARAMS', `leaseMs must be a positive integer number of milliseconds, got ${JSON.stringify(leaseMs)}.`);
}

/** The fingerprint a claim must match, or undefined for any run. */
/** The keys a holder count asks about: strings, each once (at most 100). */
export function concurrencyKeys(keys: readonly string[]): string[] {
  if (!Array.isArray(keys) || !keys.every((key) => typeof key === 'string'))
    throw new WeftError('RUN_INVALID_PARAMS', 'Concurrency keys must be an array of strings.');
  const unique = [...new Set(keys)];
  if (unique.length > 100) throw new WeftError('RUN_INVALID_PARAMS', `At most 100 concurrency keys at once, got ${unique.length}.`);
  return unique;
}

export function claimFingerprint(filter: ClaimFilter | undefined): string | undefined {
  if (filter === undefined) return undefined;
  if (!isJsonObject(filter)) throw new WeftError('RUN_INVALID_PARAMS', 'The claim filter must be an object { envFingerprint? }.');
  const { envFingerprint } = filter;
  if (envFingerprint !== undefined && (typeof envFingerprint !== 'string' || envFingerprint === '')) {
    throw new WeftError('RUN_INVALID_PARAMS', `envFingerprint must be a non-empty string, got ${JSON.stringify(envFingerprint)}.`);
  }
  return envFingerprint;
}

const MCP_SERVER_NAME = /^[A-Za-z0-9_-]{1,128}$/;

export function mcpServerName(name: unknown): string {
  if (typeof name !== 'string' || !MCP_SERVER_NAME.test(name)) {
    throw new WeftError(
      'RUN_INVALID_PARAMS',
      `MCP server name '${String(name).slice(0, 80)}' must use only letters, digits, '_' and '-' (at most 128 characters).`,
    );
  }
  return name;
}

/**
 * Refuses a parent link that would make `childId` its own ancestor. `parentOf` returns
 * the parent of a run (null for none) or undefined when the run does not exist.
 */
export function checkParentLink(childId: string, parentId: string, parentOf: (id: string) => string | null | undefined): void {
  if (parentId === childId)
    throw new WeftError('RUN_PARENT_CYCLE', `Run ${childId} cannot be its own parent.`, { data: { runId: childId, parentId } });
  let cursor: string | null | undefined = parentOf(parentId);
  if (cursor === undefined) throw runNotFound(parentId);
  const seen = new Set<string>([parentId]);
  while (cursor !== null && cursor !== undefined) {
    if (cursor === childId) {
      throw new WeftError(
        'RUN_PARENT_CYCLE',
        `Run ${parentId} descends from run ${childId}, so it cannot become its parent (that would make a cycle).`,
        { data: { runId: childId, parentId } },
      );
    }
    if (seen.has(cursor)) break;
    seen.add(cursor);
    cursor = parentOf(cursor);
  }
}

/** A lease ends when the run ends, or when a retry puts it back in the queue. */
export function statusChangeEndsLease(before: RunStatus, after: RunStatus): boolean {
  return before !== after && (after === 'queued' || after === 'succeeded' || after === 'failed' || after === 'cancelled');
}

/**
 * Fencing: refuses an append made under a lease that another runner has taken over, or
 * under one that ended with the run meanwhile (another runner finished it, or a person
 * cancelled it while this runner was cut off). `holder` is the run's lease owner now
 * (null when nobody holds it), `status` its status now.
 */
export function checkFence(runId: string, holder: string | null | undefined, status: RunStatus, leaseOwner: string | undefined): void {
  if (leaseOwner === undefined || holder === leaseOwner) return;
  if ((holder === null || holder === undefined) && !isTerminal(status)) return;
  const now = holder === null || holder === undefined ? `has ended (${status})` : `is now leased by runner ${holder}`;
  throw new WeftError(
    'RUN_LEASE_LOST',
    `Run ${runId} ${now}; the lease of runner ${leaseOwner} was taken over, so its append was refused. That runner must stop working on this run.`,
    {
      data: { runId, holder: holder ?? null, status, leaseOwner },
    },
  );
}

/** Whether a run is one a search with `query` returns (the cursor included): the same rules as the stores' queries, for runs already in hand. */
export function runMatchesFilter(run: RunRecord, query: NormalizedFilter): boolean {
  if (query.archived !== 'any' && run.archived !== query.archived) return false;
  if (query.ids !== undefined && !query.ids.includes(run.id)) return false;
  if (query.parentId !== undefined && run.parentId !== query.parentId) return false;
  if (query.workflow !== undefined && run.workflow !== query.workflow) return false;
  if (query.status !== undefined && !query.status.includes(run.status)) return false;
  if (query.createdAfter !== undefined && !(run.createdAt > query.createdAfter)) return false;
  if (query.createdBefore !== undefined && !(run.createdAt < query.createdBefore)) return false;
  if (query.labels.some(([key, value]) => run.labels[key] !== value)) return false;
  const cursor = query.cursor;
  return cursor === undefined || run.createdAt < cursor.createdAt || (run.createdAt === cursor.createdAt && run.id < cursor.id);
}
