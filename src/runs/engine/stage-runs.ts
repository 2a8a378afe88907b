/**
 * The stage port over the store: what a stage of run R may read and do besides emitting
 * its own events — R's record and events, and R's children (create, read, cancel). A
 * stage never gets the store itself, so it cannot append outside the fenced `emit` or
 * touch another run's log.
 */
import { requestCancel } from '../run-cancel.js';
import type { RunStore } from '../store/run-store.js';
import type { StageRuns } from './stage-context.js';

export function stageRuns(store: RunStore, runId: string, clock: () => number): StageRuns {
  const child = async (childId: string) => {
    const found = await store.getRun(childId);
    return found?.parentId === runId ? found : undefined;
  };
  return {
    ownRun: () => store.getRun(runId),
    ownEvents: (options) => store.listEvents(runId, options),
    createChild: (params) => store.createRun({ ...params, parentId: runId }),
    child,
    cancelChild: async (childId, reason) => {
      if ((await child(childId)) === undefined) return;
      await requestCancel(store, childId, reason, clock());
    },
  };
}
