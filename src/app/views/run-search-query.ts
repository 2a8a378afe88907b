/**
 * A run search as the surfaces receive it (snake_case fields, ISO times) turned into the
 * store's filter — one mapping for `weft_run_search` and `GET /api/v1/runs`. Each surface
 * passes how it reports a bad field, so each keeps its own error code.
 */
import type { RunStatus } from '../../runs/model/run-status.js';
import type { RunFilter } from '../../runs/store/run-store.js';

export interface RunSearchArgs {
  ids?: string[] | undefined;
  parent_id?: string | undefined;
  workflow?: string | undefined;
  labels?: Record<string, string> | undefined;
  status?: readonly string[] | undefined;
  archived: boolean | 'any';
  created_after?: string | undefined;
  created_before?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** @example runSearchQuery({ status: ['failed'], archived: false, limit: 20 }, (message) => new WeftError('USAGE', message)) */
export function runSearchQuery(args: RunSearchArgs, invalid: (message: string) => Error): RunFilter {
  const epoch = (value: string | undefined, name: string): number | undefined => {
    if (value === undefined) return undefined;
    const at = Date.parse(value);
    if (Number.isNaN(at)) throw invalid(`${name} '${value.slice(0, 40)}' is not a date; use ISO 8601 such as 2025-06-01T12:00:00Z.`);
    return at;
  };
  const createdAfter = epoch(args.created_after, 'created_after');
  const createdBefore = epoch(args.created_before, 'created_before');
  return {
    ...(args.ids ? { ids: args.ids } : {}),
    ...(args.parent_id ? { parentId: args.parent_id } : {}),
    ...(args.workflow ? { workflow: args.workflow } : {}),
    ...(args.labels ? { labels: args.labels } : {}),
    ...(args.status ? { status: args.status as RunStatus[] } : {}),
    archived: args.archived,
    ...(createdAfter !== undefined ? { createdAfter } : {}),
    ...(createdBefore !== undefined ? { createdBefore } : {}),
    limit: args.limit,
    ...(args.cursor ? { cursor: args.cursor } : {}),
  };
}
