/**
 * Runs whose id, workflow, goal or labels contain a piece of text — the search box of the
 * dashboard and `GET /api/v1/runs?text=`. The store filters by fields; the text is matched
 * here over the filtered pages, newest first, reading at most `MAX_SCANNED` runs per call
 * and handing back a cursor that goes on right after the last run looked at.
 */
import type { RunRecord } from '../../runs/model/run-record.js';
import type { RunService } from './run-service.js';
import { SEARCH_LIMITS, type RunFilter, type RunPage } from '../../runs/store/run-store.js';
import { encodeCursor } from '../../runs/store/store-input.js';

const MAX_SCANNED = 5000;

/** Whether the run's id, workflow, goal or a `key=value` label contains `needle` (lower case). */
export function runMatchesText(run: RunRecord, needle: string): boolean {
  if (run.id.toLowerCase().includes(needle) || run.workflow.toLowerCase().includes(needle) || run.goal.toLowerCase().includes(needle))
    return true;
  return Object.entries(run.labels).some(([key, value]) => `${key}=${value}`.toLowerCase().includes(needle));
}

/** @example await searchRunsByText(runs, { status: ['failed'], limit: 20 }, 'release') */
export async function searchRunsByText(runs: RunService, filter: RunFilter, text: string): Promise<RunPage> {
  const needle = text.trim().toLowerCase();
  if (needle === '') return runs.search(filter);
  const limit = Math.min(filter.limit ?? SEARCH_LIMITS.default, SEARCH_LIMITS.max);
  const found: RunRecord[] = [];
  let cursor = filter.cursor;
  let scanned = 0;
  for (;;) {
    const page = await runs.search({ ...filter, limit: SEARCH_LIMITS.max, ...(cursor === undefined ? {} : { cursor }) });
    for (const run of page.runs) {
      scanned += 1;
      if (runMatchesText(run, needle)) found.push(run);
      // Either enough matches, or enough reading for one call: the next page starts after this run.
      if (found.length === limit || scanned === MAX_SCANNED) {
        const more = page.nextCursor !== undefined || run !== page.runs.at(-1);
        return more ? { runs: found, nextCursor: encodeCursor({ createdAt: run.createdAt, id: run.id }) } : { runs: found };
      }
    }
    if (page.nextCursor === undefined) return { runs: found };
    cursor = page.nextCursor;
  }
}
