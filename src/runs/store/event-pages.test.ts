import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../model/run-event.js';
import { eventsOf } from './event-pages.js';
import { EVENT_LIMITS, type ListEventsOptions } from './run-store.js';

const log: RunEvent[] = Array.from({ length: EVENT_LIMITS.max * 2 + 5 }, (_, index) => ({
  runId: 'r',
  seq: index + 1,
  at: index,
  type: index % 2 === 0 ? 'even-event' : 'odd-event',
  payload: {},
}));

describe('eventsOf', () => {
  it('reads a log longer than one page in order, one page at a time, with the type filter passed on', async () => {
    const asked: ListEventsOptions[] = [];
    const store = {
      listEvents: async (_runId: string, options: ListEventsOptions = {}) => {
        asked.push(options);
        const matching = log.filter(
          (event) => event.seq > (options.afterSeq ?? 0) && (options.types === undefined || options.types.includes(event.type)),
        );
        return matching.slice(0, options.limit);
      },
    };
    const seqs: number[] = [];
    for await (const event of eventsOf(store, 'r')) seqs.push(event.seq);
    expect(seqs).toEqual(log.map((event) => event.seq));
    expect(asked.map((options) => options.afterSeq)).toEqual([0, EVENT_LIMITS.max, EVENT_LIMITS.max * 2]);
    const odd: number[] = [];
    for await (const event of eventsOf(store, 'r', { types: ['odd-event'] })) odd.push(event.seq);
    expect(odd).toEqual(log.filter((event) => event.type === 'odd-event').map((event) => event.seq));
  });
});
