/**
 * Leases that still look valid but whose holder cannot be running the run: a runner on
 * this host whose process is gone. Their runs are released, so a runner claims them now
 * rather than when the lease runs out. Leases held on other hosts cannot be judged from
 * here; they are counted, so a runner about to exit as idle knows work may still come.
 */
import { identityState } from '../../core/process-identity.js';
import type { RunStore } from '../store/run-store.js';
import { runnerProcess } from './runner-id.js';

export interface LeaseSweep {
  /** Runs whose dead holder's lease was released just now. */
  released: number;
  /** Runs leased by a runner on another host: they come back here if that runner dies. */
  heldElsewhere: number;
}

/** The statuses a runner holds a lease through (the store's orphanable ones). */
const LEASED_STATUSES = ['starting', 'running', 'blocked'] as const;

export async function releaseDeadLeases(store: RunStore, now: number): Promise<LeaseSweep> {
  const sweep: LeaseSweep = { released: 0, heldElsewhere: 0 };
  let cursor: string | undefined;
  do {
    const page = await store.searchRuns({ status: [...LEASED_STATUSES], limit: 500, ...(cursor ? { cursor } : {}) });
    for (const run of page.runs) {
      if (!run.lease || run.lease.expiresAt <= now) continue;
      const holder = runnerProcess(run.lease.workerId);
      if (!holder) continue;
      switch (identityState(holder)) {
        case 'exited':
        case 'replaced':
          // Several runners may see the same dead holder; the store lets one of them release it.
          if (await store.releaseLease(run.id, run.lease.workerId)) sweep.released += 1;
          break;
        case 'elsewhere':
          sweep.heldElsewhere += 1;
          break;
        case 'alive':
          break;
      }
    }
    cursor = page.nextCursor;
  } while (cursor);
  return sweep;
}
