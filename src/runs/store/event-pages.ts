/**
 * A run's whole log (or the events of some types), read a page at a time so no query
 * returns an unbounded number of rows.
 */
import type { RunEvent } from '../model/run-event.js';
import { EVENT_LIMITS, type RunStore } from './run-store.js';

/**
 * @example for await (const event of eventsOf(store, runId, { types: [ENGINE_EVENT.stageStarted] })) console.log(event.seq);
 */
export async function* eventsOf(
  store: Pick<RunStore, 'listEvents'>,
  runId: string,
  options: { types?: readonly string[]; afterSeq?: number } = {},
): AsyncGenerator<RunEvent> {
  let afterSeq = options.afterSeq ?? 0;
  for (;;) {
    const page = await store.listEvents(runId, {
      afterSeq,
      ...(options.types === undefined ? {} : { types: [...options.types] }),
      limit: EVENT_LIMITS.max,
    });
    yield* page;
    const last = page.at(-1);
    if (last === undefined || page.length < EVENT_LIMITS.max) return;
    afterSeq = last.seq;
  }
}
