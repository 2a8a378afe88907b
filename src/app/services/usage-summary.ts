/**
 * Spend over many runs: tokens and cost summed over the runs created in a time window,
 * in total and grouped by workflow, label or model — what `weft ps --since` and
 * `GET /api/v1/usage` answer. Each run's spend is in its stored summary (folded from its
 * model turns), so this reads run rows only, never logs. A child run is a run of its own
 * and is counted once, under its own workflow.
 */
import { WeftError } from '../../core/errors.js';
import { parseDuration } from '../../core/duration.js';
import type { RunRecord } from '../../runs/model/run-record.js';
import { addTokenUsage, NO_TOKENS, type TokenUsage } from '../../runs/model/token-usage.js';
import type { RunFilter } from '../../runs/store/run-store.js';
import type { RunService } from './run-service.js';

export const USAGE_GROUPS = ['workflow', 'label', 'model'] as const;
export type UsageGroupBy = (typeof USAGE_GROUPS)[number];

export interface UsageQuery {
  /** Runs created after this time (epoch ms). */
  since: number;
  groupBy?: UsageGroupBy;
  /** Only runs of this workflow / with these labels. */
  workflow?: string;
  labels?: Record<string, string>;
}

export interface UsageGroup {
  /** The workflow, `key=value` label (`(no labels)` for none), or `provider:model` (`unknown` for turns that did not say). */
  key: string;
  runs: number;
  usage: TokenUsage;
}

export interface UsageSummary {
  since: number;
  runs: number;
  usage: TokenUsage;
  /** Present when grouped; largest spend first (cost, then tokens). */
  groups?: UsageGroup[];
}

/** Rows read per page while summing. */
const PAGE = 500;

/**
 * `7d`, `12h`, `30m` back from `now`, or an ISO 8601 time; the error names the option.
 *
 * @example parseSince('7d', Date.now(), '--since') // → 7 days ago, epoch ms
 */
export function parseSince(value: string, now: number, option: string): number {
  const back = parseDuration(value);
  if (back !== undefined) return now - back;
  const at = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at))
    throw new WeftError(
      'USAGE',
      `${option} '${value.slice(0, 40)}' is neither an age (7d, 12h, 30m) nor an ISO 8601 time such as 2026-06-01T00:00:00Z.`,
    );
  return at;
}

function keysOf(run: RunRecord, groupBy: UsageGroupBy): { key: string; usage: TokenUsage }[] {
  const usage = run.usage ?? NO_TOKENS;
  switch (groupBy) {
    case 'workflow':
      return [{ key: run.workflow, usage }];
    case 'label': {
      const labels = Object.entries(run.labels);
      return labels.length === 0 ? [{ key: '(no labels)', usage }] : labels.map(([key, value]) => ({ key: `${key}=${value}`, usage }));
    }
    case 'model':
      return Object.entries(run.usageByModel ?? {}).map(([key, byModel]) => ({ key, usage: byModel }));
    default: {
      const unreachable: never = groupBy;
      return unreachable;
    }
  }
}

const spend = (usage: TokenUsage) => (usage.reportedCostUsd ?? 0) + (usage.estimatedCostUsd ?? 0);

/**
 * Sums the spend of every run created since `query.since` (archived ones included).
 *
 * @example await summarizeUsage(runs, { since: Date.now() - 7 * 86_400_000, groupBy: 'workflow' })
 */
export async function summarizeUsage(runs: Pick<RunService, 'search'>, query: UsageQuery): Promise<UsageSummary> {
  const filter: RunFilter = {
    archived: 'any',
    createdAfter: query.since,
    limit: PAGE,
    ...(query.workflow === undefined ? {} : { workflow: query.workflow }),
    ...(query.labels === undefined ? {} : { labels: query.labels }),
  };
  let total = NO_TOKENS;
  let count = 0;
  const groups = new Map<string, UsageGroup>();
  for (let cursor: string | undefined; ;) {
    const page = await runs.search(cursor === undefined ? filter : { ...filter, cursor });
    for (const run of page.runs) {
      count += 1;
      if (run.usage !== undefined) total = addTokenUsage(total, run.usage);
      if (query.groupBy === undefined) continue;
      for (const { key, usage } of keysOf(run, query.groupBy)) {
        const group = groups.get(key) ?? { key, runs: 0, usage: NO_TOKENS };
        groups.set(key, { key, runs: group.runs + 1, usage: addTokenUsage(group.usage, usage) });
      }
    }
    if (page.nextCursor === undefined) break;
    cursor = page.nextCursor;
  }
  const sorted = [...groups.values()].sort(
    (a, b) => spend(b.usage) - spend(a.usage) || b.usage.totalTokens - a.usage.totalTokens || a.key.localeCompare(b.key),
  );
  return { since: query.since, runs: count, usage: total, ...(query.groupBy === undefined ? {} : { groups: sorted }) };
}
