/**
 * `weft prune`: deletes finished runs created longer ago than a given age (optionally only
 * some statuses), with their events and artifacts. Runs that are not finished are never
 * touched; `dryRun` lists what would go and deletes nothing.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { WeftError } from '../../core/errors.js';
import { isTerminal, RUN_STATUSES, type RunStatus, type TerminalRunStatus } from '../../runs/model/run-status.js';
import type { RunService } from './run-service.js';

const FINISHED: readonly TerminalRunStatus[] = RUN_STATUSES.filter(isTerminal);

export interface PruneParams {
  olderThanMs: number;
  /** Default: every finished status. */
  statuses?: readonly string[];
  dryRun?: boolean;
  now?: number;
}

export interface PrunedRun {
  id: string;
  workflow: string;
  status: RunStatus;
  createdAt: number;
}

export interface PruneResult {
  dryRun: boolean;
  runs: PrunedRun[];
}

export async function pruneRuns(runs: RunService, storageDir: string, params: PruneParams): Promise<PruneResult> {
  const statuses = finishedStatuses(params.statuses);
  const createdBefore = (params.now ?? Date.now()) - params.olderThanMs;
  const found: PrunedRun[] = [];
  for (let cursor: string | undefined; ;) {
    const page = await runs.search({ status: [...statuses], createdBefore, archived: 'any', limit: 500, ...(cursor ? { cursor } : {}) });
    found.push(...page.runs.map((run) => ({ id: run.id, workflow: run.workflow, status: run.status, createdAt: run.createdAt })));
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  if (!params.dryRun) {
    for (const run of found) {
      await runs.remove(run.id);
      await rm(join(storageDir, 'artifacts', run.id), { recursive: true, force: true });
    }
  }
  return { dryRun: params.dryRun ?? false, runs: found };
}

function finishedStatuses(given: readonly string[] | undefined): readonly TerminalRunStatus[] {
  if (given === undefined || given.length === 0) return FINISHED;
  return given.map((status) => {
    const found = FINISHED.find((finished) => finished === status);
    if (!found) throw new WeftError('USAGE', `--status '${status}' cannot be pruned: only finished runs are (${FINISHED.join(', ')}).`);
    return found;
  });
}
