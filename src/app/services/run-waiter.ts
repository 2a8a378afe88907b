/**
 * Waiting for runs to end (`weft wait`, `weft run`, `weft_run_wait`): wakes on the store's
 * change notices (runners write from other processes), not by polling; the only timers
 * are the deadline and the moments a runner's lease runs out, when nobody writes but the
 * run needs a new runner. A run nobody executes gets a runner started for it, and a store
 * that is coming back (a restart, a network cut) is waited out until the deadline.
 */
import { isTerminal, type RunStatus } from '../../runs/model/run-status.js';
import type { RunRecord } from '../../runs/model/run-record.js';
import type { ChangeLatch } from '../../runs/store/change-latch.js';
import { isStoreOutage, OUTAGE_RETRY_MS } from './store-outage.js';

/**
 * How soon a waiter looks again at a run nobody executes, after waking the runners for it:
 * a runner that is still booting writes nothing, and one that failed to start must be
 * started again.
 */
const ORPHAN_RECHECK_MS = 1000;

export interface WaiterDeps {
  get: (ref: string) => Promise<RunRecord>;
  /** A latch on the store's change notices, made before the first read. */
  changes: () => ChangeLatch;
  clock: () => number;
  wakeRunners: () => void;
}

export interface WaitRequest {
  refs: readonly string[];
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Told whenever a run's status or event count changed. */
  onChange?: ((runs: RunRecord[]) => void) | undefined;
  /** Ends the wait sooner (`timedOut: false`), e.g. when a run needs a person. */
  returnEarly?: ((runs: readonly RunRecord[]) => boolean) | undefined;
}

/** Resolves when every run is terminal, or when `timeoutMs` passes or `signal` aborts (`timedOut: true`). */
export async function waitForRuns(deps: WaiterDeps, request: WaitRequest): Promise<{ runs: RunRecord[]; timedOut: boolean }> {
  const { refs, timeoutMs, signal, onChange, returnEarly } = request;
  const deadline = deps.clock() + timeoutMs;
  // Watching starts before the first read, so a run that ends between a read and the wait after it is not missed.
  const changes = deps.changes();
  // A wait that reports nothing along the way needs to look again only when a run may have moved to another status (or lost its runner).
  const statuses = onChange === undefined && returnEarly === undefined ? new Map<string, RunStatus>() : undefined;
  try {
    let ids = refs;
    let previous = '';
    for (;;) {
      let runs: RunRecord[];
      try {
        runs = await Promise.all(ids.map((id) => deps.get(id)));
      } catch (error) {
        // The store is coming back (a restart, a network cut): a waiter keeps waiting until its deadline.
        const left = deadline - deps.clock();
        if (!isStoreOutage(error) || left <= 0 || signal?.aborted) throw error;
        await changes.next(Math.min(left, OUTAGE_RETRY_MS), signal);
        continue;
      }
      for (const run of runs) statuses?.set(run.id, run.status);
      if (ids === refs)
        changes.follow(
          runs.map((run) => run.id),
          statuses,
        );
      ids = runs.map((run) => run.id);
      const key = runs.map((run) => `${run.id}:${run.status}:${run.counts.events}`).join(',');
      if (key !== previous) onChange?.(runs);
      previous = key;
      if (runs.every((run) => isTerminal(run.status)) || returnEarly?.(runs)) return { runs, timedOut: false };
      // Nobody executes a queued run, or one whose runner died: start a runner for it.
      if (runs.some((run) => isOrphaned(run, deps.clock()))) deps.wakeRunners();
      const left = deadline - deps.clock();
      if (left <= 0 || signal?.aborted) return { runs, timedOut: true };
      await changes.next(Math.min(left, recheckIn(runs, deps.clock())), signal);
    }
  } finally {
    changes.close();
  }
}

/** True when nobody executes this run: queued, or its runner's lease ran out. */
export function isOrphaned(run: RunRecord, now: number): boolean {
  return executable(run) && (run.lease === undefined || run.lease.expiresAt <= now);
}

function executable(run: RunRecord): boolean {
  return run.status === 'queued' || run.status === 'starting' || run.status === 'running' || run.status === 'blocked';
}

/** Milliseconds until one of `runs` may need a runner although nothing was written: the earliest lease to run out. */
function recheckIn(runs: readonly RunRecord[], now: number): number {
  let soonest = Number.POSITIVE_INFINITY;
  for (const run of runs) {
    if (!executable(run)) continue;
    const expiresAt = run.lease?.expiresAt;
    soonest = Math.min(soonest, expiresAt === undefined || expiresAt <= now ? ORPHAN_RECHECK_MS : expiresAt - now);
  }
  return soonest;
}
