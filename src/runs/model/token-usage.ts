/**
 * Model token counts and their cost as the log keeps them (`model-turn-finished`,
 * `stage-finished`, `sampling-finished`) and how they add up per stage and per run. Cached
 * input, cache-write and reasoning tokens are counted only where a provider reports them:
 * absent means "not reported", never zero. Cost is kept in two figures that are never
 * added silently: what the provider or CLI *reported* and what weft *estimated* from its
 * price table; turns with no known price are counted, so a missing price never reads as $0.
 */
import type { TokenUsagePayload } from './event-types.js';

export type TokenUsage = TokenUsagePayload;

export const NO_TOKENS: TokenUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

const OPTIONAL_FIELDS = [
  'cachedInputTokens',
  'cacheWriteTokens',
  'reasoningTokens',
  'reportedCostUsd',
  'estimatedCostUsd',
  'unpricedTurns',
] as const;

function addOptional(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
}

/**
 * The sum of two counts; an optional count stays absent only when neither side reported it.
 *
 * @example addTokenUsage({ inputTokens: 10, outputTokens: 2, totalTokens: 12 }, { inputTokens: 5, outputTokens: 1, totalTokens: 6, cachedInputTokens: 4 })
 * // → { inputTokens: 15, outputTokens: 3, totalTokens: 18, cachedInputTokens: 4 }
 */
export function addTokenUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const sum: TokenUsage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
  for (const field of OPTIONAL_FIELDS) {
    const value = addOptional(a[field], b[field]);
    if (value !== undefined) sum[field] = value;
  }
  return sum;
}

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/** The usage in an event payload's `usage` field, or undefined when it has none (a log is read as data, not trusted). */
export function readTokenUsage(value: unknown): TokenUsage | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const usage = value as Record<string, unknown>;
  const inputTokens = count(usage.inputTokens) ?? 0;
  const outputTokens = count(usage.outputTokens) ?? 0;
  const read: TokenUsage = { inputTokens, outputTokens, totalTokens: count(usage.totalTokens) ?? inputTokens + outputTokens };
  for (const field of OPTIONAL_FIELDS) {
    const item = count(usage[field]);
    if (item !== undefined) read[field] = item;
  }
  // Older logs named the reported cost `costUsd`.
  const legacyCost = count(usage.costUsd);
  if (read.reportedCostUsd === undefined && legacyCost !== undefined) read.reportedCostUsd = legacyCost;
  return read;
}

/** Adds the usage in `payload.usage` (if any) to `total`. */
export function withPayloadUsage(total: TokenUsage | undefined, payload: { usage?: unknown }): TokenUsage | undefined {
  const usage = readTokenUsage(payload.usage);
  if (usage === undefined) return total;
  return total === undefined ? usage : addTokenUsage(total, usage);
}

/** The cost of some usage in both figures; `priced` is false when no turn had a cost at all. */
export interface CostSummary {
  reportedUsd: number;
  estimatedUsd: number;
  /** Turns with no known price, whose cost is in neither figure. */
  unpricedTurns: number;
  /** Whether any figure is known. */
  priced: boolean;
}

/**
 * Both cost figures of `usage`.
 *
 * @example costOf({ inputTokens: 10, outputTokens: 2, totalTokens: 12, estimatedCostUsd: 0.001 }) // → { reportedUsd: 0, estimatedUsd: 0.001, unpricedTurns: 0, priced: true }
 */
export function costOf(usage: TokenUsage | undefined): CostSummary {
  const reportedUsd = usage?.reportedCostUsd ?? 0;
  const estimatedUsd = usage?.estimatedCostUsd ?? 0;
  return {
    reportedUsd,
    estimatedUsd,
    unpricedTurns: usage?.unpricedTurns ?? 0,
    priced: usage?.reportedCostUsd !== undefined || usage?.estimatedCostUsd !== undefined,
  };
}

/** Dollars as people read them: cents for amounts of a dollar or more, four decimals under it. */
export function formatUsd(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/**
 * The cost of `usage` in words that say where each figure came from, or '' when nothing
 * is known.
 *
 * @example costText({ …, reportedCostUsd: 0.5, estimatedCostUsd: 0.25 }) // → '$0.7500 ($0.5000 reported + $0.2500 estimated)'
 */
export function costText(usage: TokenUsage | undefined): string {
  const cost = costOf(usage);
  const unpriced = cost.unpricedTurns > 0 ? `${cost.unpricedTurns} turn${cost.unpricedTurns === 1 ? '' : 's'} unpriced` : '';
  if (!cost.priced) return unpriced === '' ? '' : `cost unknown (${unpriced})`;
  const hasReported = usage?.reportedCostUsd !== undefined;
  const hasEstimated = usage?.estimatedCostUsd !== undefined;
  const suffix = unpriced === '' ? '' : `, ${unpriced}`;
  if (hasReported && hasEstimated) {
    return `${formatUsd(cost.reportedUsd + cost.estimatedUsd)} (${formatUsd(cost.reportedUsd)} reported + ${formatUsd(cost.estimatedUsd)} estimated${suffix})`;
  }
  return hasReported
    ? `${formatUsd(cost.reportedUsd)} reported${suffix && ` (${unpriced})`}`
    : `${formatUsd(cost.estimatedUsd)} estimated${suffix && ` (${unpriced})`}`;
}
