/**
 * Why queued runs wait: the concurrency keys each carries that are full now (as a claim
 * would count them, on any host), read for `ps`, `inspect`, the HTTP run view and the
 * dashboard in one holder count for all the runs shown.
 */
import { fullSlots, type ConcurrencyWait } from '../../runs/model/run-concurrency.js';
import type { RunRecord } from '../../runs/model/run-record.js';
import type { RunStore } from '../../runs/store/run-store.js';

export type { ConcurrencyWait } from '../../runs/model/run-concurrency.js';

/** By run id, the full keys of each queued, unleased run among `runs` that waits for one. */
export async function concurrencyWaits(
  store: Pick<RunStore, 'concurrencyHeld'>,
  runs: readonly RunRecord[],
): Promise<Map<string, ConcurrencyWait[]>> {
  const waiting = runs.filter((run) => run.status === 'queued' && run.lease === undefined && run.concurrency !== undefined);
  const waits = new Map<string, ConcurrencyWait[]>();
  if (waiting.length === 0) return waits;
  const held = await store.concurrencyHeld(
    [...new Set(waiting.flatMap((run) => run.concurrency?.map((slot) => slot.key) ?? []))].slice(0, 100),
  );
  for (const run of waiting) {
    const full = fullSlots(run.concurrency, held);
    if (full.length > 0) waits.set(run.id, full);
  }
  return waits;
}

/** One line for people: `concurrency key 'repo:a' is full (1 of 1)`, several joined by `; `. */
export function waitText(waits: readonly ConcurrencyWait[]): string {
  return waits.map((wait) => `concurrency key '${wait.key}' is full (${wait.held} of ${wait.limit})`).join('; ');
}
