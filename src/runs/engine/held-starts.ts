/**
 * `stage-started` events held back until their stage's first event (a tool stage's
 * `tool-call-started`, a branch's `stage-finished`), so they share its group commit: one
 * commit per stage fewer. Only for kinds that touch nothing outside the log before their
 * first event; a runner that dies before it finds the stage not started and starts it.
 * A stage may hold more of its events the same way (`holdAlong`: a tool stage's
 * `tool-call-started` for a tool that only reads the workspace, so the whole stage is one
 * commit): losing them with the runner leaves nothing a new attempt would need.
 */
import type { NewRunEvent } from '../model/run-event.js';
import type { WorkflowNode } from '../workflow/types.js';

const START_RIDES_ALONG: ReadonlySet<WorkflowNode['kind']> = new Set(['tool', 'branch']);

export class HeldStarts {
  readonly #held = new Map<string, NewRunEvent[]>();

  /** Holds `started` when its stage's kind lets it ride along; false when it must be appended now. */
  hold(kind: WorkflowNode['kind'], started: NewRunEvent): boolean {
    if (!START_RIDES_ALONG.has(kind) || started.stageId === undefined) return false;
    this.holdAlong(started.stageId, [started]);
    return true;
  }

  /** Holds events of stage `stageId` (after any it holds already) until the stage's next append. */
  holdAlong(stageId: string, events: readonly NewRunEvent[]): void {
    this.#held.set(stageId, [...(this.#held.get(stageId) ?? []), ...events.map((event) => ({ ...event, stageId }))]);
  }

  /** `events`, each stage's held events put before its first event. */
  placeIn(events: NewRunEvent[]): NewRunEvent[] {
    if (this.#held.size === 0) return events;
    const out: NewRunEvent[] = [];
    for (const event of events) {
      const held = event.stageId === undefined ? undefined : this.#held.get(event.stageId);
      if (held && event.stageId !== undefined) {
        this.#held.delete(event.stageId);
        out.push(...held);
      }
      out.push(event);
    }
    return out;
  }
}
