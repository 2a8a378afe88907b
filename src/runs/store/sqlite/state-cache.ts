/**
 * The projected state of the runs this connection appended to most recently, so the next
 * append to one of them skips reading its row and newest event and parsing the state — a
 * quarter of an append's CPU. It is right only while nothing else has written: the store
 * calls {@link RunStateCache.checkVersion} with `PRAGMA data_version` inside every write
 * transaction (the value moves when another connection commits, never for this one's own
 * commits), and clears the cache when a batch rolls back.
 */
import type { RunState } from '../../model/run-record.js';

export const STATE_CACHE_RUNS = 1024;

export class RunStateCache {
  private readonly states = new Map<string, RunState>();
  private dataVersion: number | undefined;

  constructor(private readonly capacity = STATE_CACHE_RUNS) {}

  /** Forgets everything when another connection has committed since the last check. */
  checkVersion(dataVersion: number): void {
    if (dataVersion !== this.dataVersion) this.states.clear();
    this.dataVersion = dataVersion;
  }

  get(id: string): RunState | undefined {
    return this.states.get(id);
  }

  /** Records `state` as the run's state at its newest event; the least recently written run leaves first. */
  set(id: string, state: RunState): void {
    this.states.delete(id);
    this.states.set(id, state);
    if (this.states.size > this.capacity) {
      const oldest = this.states.keys().next();
      if (oldest.done !== true) this.states.delete(oldest.value);
    }
  }

  delete(id: string): void {
    this.states.delete(id);
  }

  clear(): void {
    this.states.clear();
    this.dataVersion = undefined;
  }
}

/**
 * Whether `after` differs from `before` only in the event count and `updatedAt` — what an
 * append may leave out of the run's row. Relies on the projection being immutable: a
 * reducer that changes a field replaces it, so an unchanged field is the same value. A
 * field rebuilt with equal content reads as changed, which costs one row write, never a
 * lost change.
 */
export function onlyCountAndTimeChanged(before: RunState, after: RunState): boolean {
  const keys = Object.keys(after) as (keyof RunState)[];
  if (keys.length !== Object.keys(before).length) return false;
  for (const key of keys) {
    if (key === 'updatedAt') continue;
    if (key === 'counts') {
      if (!sameExceptEvents(before.counts, after.counts)) return false;
      continue;
    }
    if (key === 'pendingQuestionIds') {
      const ids = before.pendingQuestionIds;
      if (after.pendingQuestionIds.length !== ids.length || after.pendingQuestionIds.some((id, index) => id !== ids[index])) return false;
      continue;
    }
    if (after[key] !== before[key]) return false;
  }
  return true;
}

function sameExceptEvents(before: RunState['counts'], after: RunState['counts']): boolean {
  const keys = Object.keys(after) as (keyof RunState['counts'])[];
  return keys.length === Object.keys(before).length && keys.every((key) => key === 'events' || after[key] === before[key]);
}
