/**
 * Reconnect delays: exponential backoff with jitter (1 s initial, × 1.5, at most 30 s by
 * default). Pure, with the random source injectable so tests are deterministic.
 */

export interface BackoffOptions {
  initialMs: number;
  factor: number;
  maxMs: number;
  /** Fraction of the delay that is randomised: 0.2 → the delay varies by ±20 %. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 1000, factor: 1.5, maxMs: 30_000, jitter: 0.2 };

/**
 * The delay before reconnect attempt `attempt` (1-based): `initial × factor^(attempt-1)`,
 * capped at `max`, then jittered and capped again.
 */
export function backoffDelay(attempt: number, options: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const exponent = Math.max(0, attempt - 1);
  const base = Math.min(options.maxMs, options.initialMs * options.factor ** exponent);
  const spread = base * options.jitter * (random() * 2 - 1);
  return Math.max(0, Math.min(options.maxMs, Math.round(base + spread)));
}
