/**
 * A run's concurrency keys as its spec holds them: each resolved key (the workflow's
 * `[run.concurrency]` template rendered when the run was created) with the most runs that
 * may hold it at once. The stores enforce them when a runner claims a run: a key is held by
 * every unfinished run carrying it whose lease is live, so a crashed runner's slots free
 * themselves when its lease runs out.
 */
import { WeftError } from '../../core/errors.js';
import { describeType, isJsonObject } from './json.js';

/** One concurrency key of a run, as its spec keeps it: the rendered key and its limit. */
export interface ConcurrencySlot {
  /** The resolved key, e.g. `repo:acme/api`; shared by every workflow that renders the same text. */
  key: string;
  /** How many runs carrying the key may be leased at once (≥ 1). */
  limit: number;
}

export const MAX_CONCURRENCY_KEYS = 8;
export const MAX_CONCURRENCY_KEY_LENGTH = 200;
export const MAX_CONCURRENCY_LIMIT = 10_000;

function invalid(message: string): WeftError {
  return new WeftError('RUN_INVALID_PARAMS', `Invalid run-created event: ${message}`);
}

/** Checks the `concurrency` of a `run-created` payload: distinct non-empty keys with whole limits ≥ 1. */
export function readRunConcurrency(value: unknown): ConcurrencySlot[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw invalid(`'concurrency' must be an array of { key, limit }, got ${describeType(value)}.`);
  if (value.length > MAX_CONCURRENCY_KEYS) throw invalid(`'concurrency' has ${value.length} keys; at most ${MAX_CONCURRENCY_KEYS}.`);
  const slots: ConcurrencySlot[] = [];
  for (const [index, item] of value.entries()) {
    if (!isJsonObject(item)) throw invalid(`concurrency[${index}] must be an object { key, limit }, got ${describeType(item)}.`);
    const { key, limit } = item;
    if (typeof key !== 'string' || key.trim() === '' || key.length > MAX_CONCURRENCY_KEY_LENGTH) {
      throw invalid(
        `concurrency[${index}].key must be a non-empty string of at most ${MAX_CONCURRENCY_KEY_LENGTH} characters, got ${typeof key === 'string' ? JSON.stringify(key.slice(0, 80)) : describeType(key)}.`,
      );
    }
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_CONCURRENCY_LIMIT) {
      throw invalid(`concurrency[${index}].limit must be a whole number from 1 to ${MAX_CONCURRENCY_LIMIT}, got ${JSON.stringify(limit)}.`);
    }
    if (slots.some((slot) => slot.key === key)) throw invalid(`concurrency key ${JSON.stringify(key)} is given twice.`);
    slots.push({ key, limit });
  }
  return slots.length === 0 ? undefined : slots;
}

/**
 * One slot per distinct key, the smallest limit winning when two templates render the same
 * key: the form the stores keep.
 */
export function mergeConcurrencySlots(slots: readonly ConcurrencySlot[]): ConcurrencySlot[] {
  const byKey = new Map<string, number>();
  for (const { key, limit } of slots) byKey.set(key, Math.min(limit, byKey.get(key) ?? limit));
  return [...byKey].map(([key, limit]) => ({ key, limit }));
}

/** Why a queued run waits: the keys it carries that are full now, with how many hold each. */
export interface ConcurrencyWait {
  key: string;
  limit: number;
  held: number;
}

/** The keys among `slots` that `held` (runs holding each key now) leaves no room in. */
export function fullSlots(slots: readonly ConcurrencySlot[] | undefined, held: Readonly<Record<string, number>>): ConcurrencyWait[] {
  return (slots ?? []).flatMap(({ key, limit }) => ((held[key] ?? 0) >= limit ? [{ key, limit, held: held[key] ?? 0 }] : []));
}
