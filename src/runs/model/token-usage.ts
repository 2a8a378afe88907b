/**
 * Model token counts as the log keeps them (`model-turn-finished`, `stage-finished`,
 * `sampling-finished`) and how they add up per stage and per run. Cached input and
 * reasoning tokens are counted only where a provider reports them: absent means "not
 * reported", never zero.
 */
import type { TokenUsagePayload } from './event-types.js';

export type TokenUsage = TokenUsagePayload;

export const NO_TOKENS: TokenUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

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
  const cached = addOptional(a.cachedInputTokens, b.cachedInputTokens);
  const reasoning = addOptional(a.reasoningTokens, b.reasoningTokens);
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    ...(cached === undefined ? {} : { cachedInputTokens: cached }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
  };
}

const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined);

/** The usage in an event payload's `usage` field, or undefined when it has none (a log is read as data, not trusted). */
export function readTokenUsage(value: unknown): TokenUsage | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const usage = value as Record<string, unknown>;
  const inputTokens = count(usage.inputTokens) ?? 0;
  const outputTokens = count(usage.outputTokens) ?? 0;
  const cached = count(usage.cachedInputTokens);
  const reasoning = count(usage.reasoningTokens);
  return {
    inputTokens,
    outputTokens,
    totalTokens: count(usage.totalTokens) ?? inputTokens + outputTokens,
    ...(cached === undefined ? {} : { cachedInputTokens: cached }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
  };
}

/** Adds the usage in `payload.usage` (if any) to `total`. */
export function withPayloadUsage(total: TokenUsage | undefined, payload: { usage?: unknown }): TokenUsage | undefined {
  const usage = readTokenUsage(payload.usage);
  if (usage === undefined) return total;
  return total === undefined ? usage : addTokenUsage(total, usage);
}
