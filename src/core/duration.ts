/**
 * Durations as people write them in config files: `"500ms"`, `"10s"`, `"2m"`, `"1h"`, `"30d"`,
 * or a bare number of milliseconds.
 */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;

/** Parses a duration; returns `undefined` when the text is not one (the caller reports where). */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  const match = DURATION.exec(value.trim());
  if (!match) return undefined;
  const [, amount, unit] = match;
  return Math.round(Number(amount) * UNIT_MS[unit as string]!);
}

/** `12000` → `"12s"`, `1500` → `"1.5s"`, `250` → `"250ms"`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))}s`;
  return `${Number((ms / 60_000).toFixed(1))}m`;
}
