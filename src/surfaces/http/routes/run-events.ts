/**
 * `GET /api/v1/runs/{id}/events`: a run's log as JSON pages (`after_seq`), or — with
 * `Accept: text/event-stream` — a live Server-Sent Events stream: each event as
 * `event: <type>`, `id: <seq>`, `data: <event JSON>`, from the seq after `Last-Event-ID`
 * (so a browser's EventSource resumes where it broke off) and then as events are
 * appended. New events are found on the store's change notices (runners append from
 * other processes), not by polling, by one reader per run for all its streams.
 */
import * as z from 'zod';
import { eventSchema, eventView } from '../../../app/views/run-view.js';
import type { RunEvent } from '../../../runs/model/run-event.js';
import { EVENT_LIMITS } from '../../../runs/store/run-store.js';
import { defineRoute, type ApiRoute } from '../api-route.js';
import type { HttpDeps } from '../http-deps.js';
import { followerStream, lastEventId, wantsEventStream } from './sse-stream.js';

/** Long payload strings are cut in pages and streams alike; the MCP tool's `details` reads one in full. */
const MAX_CONTENT_LENGTH = 2000;

const query = z
  .object({
    after_seq: z.coerce.number().int().min(0).default(0).describe('Only events after this seq'),
    limit: z.coerce.number().int().min(1).max(EVENT_LIMITS.max).default(EVENT_LIMITS.default),
    types: z.string().min(1).optional().describe('Comma-separated event types'),
  })
  .strict();

const page = z.object({
  events: z.array(eventSchema),
  next_after_seq: z.number().int().nullable().describe('Pass as after_seq for the next page; null on the last page'),
});

/**
 * Each event's SSE frame, made once however many streams send it (followers of one run
 * share the event objects). JSON.stringify writes no newline, so `data` is one line.
 */
const frames = new WeakMap<RunEvent, string>();
function frame(event: RunEvent): string {
  let text = frames.get(event);
  if (text === undefined) {
    text = `event: ${event.type}\nid: ${event.seq}\ndata: ${JSON.stringify(eventView(event, MAX_CONTENT_LENGTH))}\n\n`;
    frames.set(event, text);
  }
  return text;
}

export function runEventRoutes(deps: HttpDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/runs/{id}/events',
      summary:
        "A run's events: JSON pages after after_seq, or with Accept: text/event-stream a live SSE stream resuming after Last-Event-ID",
      query,
      response: page,
      produces: { 'text/event-stream': 'Live events: event: <type>, id: <seq>, data: <event JSON>' },
      async handle({ params, query: args, context }) {
        const runs = await deps.runs();
        const types = args.types
          ?.split(',')
          .map((type) => type.trim())
          .filter((type) => type !== '');
        if (wantsEventStream(context)) {
          const runId = (await runs.get(params.id!)).id;
          const from = lastEventId(context, 'the seq of the last event received') ?? args.after_seq;
          return followerStream(context, () => runs.followEvents(runId, from, types), frame);
        }
        const events = await runs.events(params.id!, { afterSeq: args.after_seq, limit: args.limit, ...(types ? { types } : {}) });
        const more = events.length === args.limit;
        return {
          json: {
            events: events.map((event) => eventView(event, MAX_CONTENT_LENGTH)),
            next_after_seq: more ? (events.at(-1)?.seq ?? null) : null,
          },
        };
      },
    }),
  ];
}
