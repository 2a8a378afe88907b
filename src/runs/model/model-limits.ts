/**
 * Model limits as the stores enforce them (`[llm.limits]`, docs/spend-and-flow.md): a pool
 * is named by its settings pattern and holds three limits over the calls made under it —
 * calls in flight (each held by a run under a live lease), calls started in the window, and
 * tokens of the calls that ended in the window. Tokens are known only after a call, so a
 * call may start while the window has room and overshoot it by its own size. This module is
 * the arithmetic: given what a store counted in one transaction, may one more call start,
 * and if not, which limit stops it and how long until that can change.
 */

export const MODEL_LIMIT_KINDS = ['concurrent', 'requests_per_minute', 'tokens_per_minute'] as const;
export type ModelLimitKind = (typeof MODEL_LIMIT_KINDS)[number];

/** The rate window of `requests_per_minute` and `tokens_per_minute`. */
export const MODEL_LIMIT_WINDOW_MS = 60_000;

/** One pool a call falls under: its pattern and the limits it sets (at least one). */
export interface ModelLimitPool {
  pattern: string;
  concurrent?: number;
  requestsPerMinute?: number;
  tokensPerMinute?: number;
}

/** What a store counted for one pool at `now`. */
export interface ModelPoolUsage {
  /** Calls not yet ended whose run's lease (by the call's lease owner) is live. */
  inFlight: number;
  /** Calls started after `now − window`. */
  requests: number;
  /** Start of the oldest of those, or null when there are none. */
  oldestRequestAt: number | null;
  /** Tokens of calls that ended after `now − window`. */
  tokens: number;
  /** End of the oldest of those with tokens, or null. */
  oldestTokensAt: number | null;
}

/** Why a call may not start now: the pool and limit that stop it, and when to look again (null: when a call ends). */
export interface ModelLimitRefusal {
  pattern: string;
  limit: ModelLimitKind;
  retryAfterMs: number | null;
}

/**
 * The first limit of `pool` that stops one more call, or undefined when it may start.
 *
 * @example
 * poolRefusal({ pattern: 'anthropic:*', requestsPerMinute: 2 }, { inFlight: 0, requests: 2, oldestRequestAt: 1_000, tokens: 0, oldestTokensAt: null }, 31_000, 60_000)
 * // → { pattern: 'anthropic:*', limit: 'requests_per_minute', retryAfterMs: 30_000 }
 */
export function poolRefusal(pool: ModelLimitPool, usage: ModelPoolUsage, now: number, windowMs: number): ModelLimitRefusal | undefined {
  const leaves = (at: number | null) => (at === null ? null : Math.max(1, at + windowMs - now));
  if (pool.concurrent !== undefined && usage.inFlight >= pool.concurrent)
    return { pattern: pool.pattern, limit: 'concurrent', retryAfterMs: null };
  if (pool.requestsPerMinute !== undefined && usage.requests >= pool.requestsPerMinute)
    return { pattern: pool.pattern, limit: 'requests_per_minute', retryAfterMs: leaves(usage.oldestRequestAt) };
  if (pool.tokensPerMinute !== undefined && usage.tokens >= pool.tokensPerMinute)
    return { pattern: pool.pattern, limit: 'tokens_per_minute', retryAfterMs: leaves(usage.oldestTokensAt) };
  return undefined;
}

/**
 * How long a waiting call sleeps before it asks again: the refusal's own time when a rate
 * window says when room comes (capped, so a shortened window or a freed slot is seen soon),
 * else a backoff that doubles from 20 ms to `maxMs`; jittered by up to a quarter so waiters
 * on several hosts do not ask in step.
 *
 * @example pollDelay({ retryAfterMs: null }, 0, 1000, () => 0.5) // → 22.5 (20 ms + 12.5 %)
 */
export function pollDelay(refusal: Pick<ModelLimitRefusal, 'retryAfterMs'>, attempt: number, maxMs: number, random: () => number): number {
  const base = refusal.retryAfterMs ?? 20 * 2 ** Math.min(attempt, 10);
  const capped = Math.min(base, maxMs);
  return capped * (1 + random() / 4);
}
