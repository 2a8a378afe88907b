/**
 * `stage-started` events held back until their stage's first event (a tool stage's
 * `tool-call-started`, a branch's `stage-finished`), so they share its group commit: one
 * commit per stage fewer. Only for kinds that touch nothing outside the log before their
 * first event; a runner that dies before it finds the stage not started and starts it.
 */
import type { NewRunEvent } from '../model/run-event.js';
import type { WorkflowNode } from '../workflow/types.js';

const START_RIDES_ALONG: ReadonlySet<WorkflowNode['kind']> = new Set(['tool', 'branch']);

export class HeldStarts {
  readonly #held = new Map<string, NewRunEvent>();

  /** Holds `started` when its stage's kind lets it ride along; false when it must be appended now. */
  hold(kind: WorkflowNode['kind'], started: NewRunEvent): boolean {
    if (!START_RIDES_ALONG.has(kind) || started.stageId === undefined) return false;
    this.#held.set(started.stageId, started);
    return true;
  }

  /** `events`, each held start put before the first event of its stage. */
  placeIn(events: NewRunEvent[]): NewRunEvent[] {
    if (this.#held.size === 0) return events;
    const out: NewRunEvent[] = [];
    for (const event of events) {
      const started = event.stageId === undefined ? undefined : this.#held.get(event.stageId);
      if (started && event.stageId !== undefined) {
        this.#held.delete(event.stageId);
        out.push(started);
      }
      out.push(event);
    }
    return out;
  }
}
