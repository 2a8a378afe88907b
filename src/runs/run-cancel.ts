/**
 * Cancelling a run: a run that a live runner holds is asked (the runner stops its stages,
 * killing commands and tool calls, and records the end); a run nobody executes is moved to
 * `cancelled` at once.
 */
import { ENGINE_EVENT, RUN_EVENT } from './model/event-types.js';
import { WeftError } from '../core/errors.js';
import type { RunRecord } from './model/run-record.js';
import { isTerminal } from './model/run-status.js';
import type { RunStore } from './store/run-store.js';

export async function requestCancel(store: RunStore, runId: string, reason: string | undefined, now: number): Promise<RunRecord> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const run = await store.getRun(runId);
    if (!run) throw new WeftError('RUN_NOT_FOUND', `No run with id ${runId}. List runs with 'weft ps --all'.`, { data: { runId } });
    if (isTerminal(run.status)) {
      throw new WeftError(
        'RUN_INVALID_TRANSITION',
        `Run ${runId} is already ${run.status}; only a run that has not ended can be cancelled.`,
        { data: { runId, status: run.status } },
      );
    }
    const held = run.lease !== undefined && run.lease.expiresAt > now;
    if (held) {
      await store.appendEvents(runId, [{ type: ENGINE_EVENT.cancelRequested, payload: reason ? { reason } : {} }]);
      return run;
    }
    try {
      await store.appendEvents(runId, [
        { type: RUN_EVENT.runStatusChanged, payload: { from: run.status, to: 'cancelled', ...(reason ? { reason } : {}) } },
      ]);
      return (await store.getRun(runId)) ?? run;
    } catch (error) {
      // A runner claimed the run between our read and our write: ask it instead.
      if (!WeftError.is(error, 'RUN_INVALID_TRANSITION')) throw error;
    }
  }
  throw new WeftError('RUN_INVALID_TRANSITION', `Run ${runId} kept changing state while it was being cancelled; try again.`);
}
