/**
 * `weft_run_events`: reads a run's append-only event log — `list` a page (type filters,
 * direction, after_seq/before_seq paging), `details` of one event by seq, or `search`
 * for text in types, stage ids and payloads. Long payload strings are cut to
 * `max_content_length` so one call never floods the client.
 */
import * as z from 'zod';
import { RUN_EVENT } from '../../../runs/model/event-types.js';
import { EVENT_LIMITS } from '../../../runs/store/run-store.js';
import type { RunEvent } from '../../../runs/model/run-event.js';
import type { RunService } from '../../../app/services/run-service.js';
import { failure } from '../error-codes.js';
import { eventSchema, eventView } from '../../../app/views/run-view.js';
import { defineTool, needArg, ToolFailure } from '../tool-kit.js';
import { runIdArg } from '../../../app/views/run-args.js';

export const EVENT_ACTIONS = ['list', 'details', 'search'] as const;
/** A search reads at most this many events per call, then hands back where to go on. */
const SEARCH_SCAN_LIMIT = 20_000;
const seqArg = (description: string) => z.number().int().min(0).describe(description);

const input = z
  .object({
    run_id: runIdArg('The run whose events to read'),
    action: z
      .enum(EVENT_ACTIONS)
      .default('list')
      .describe('list: a page of events; details: one event in full (seq); search: events whose type, stage id or payload contains query'),
    types: z
      .array(z.string().min(1))
      .min(1)
      .max(50)
      .optional()
      .describe(`list, search: only these event types, e.g. ["${RUN_EVENT.stageStarted}", "${RUN_EVENT.stageFinished}"]`),
    direction: z.enum(['asc', 'desc']).default('asc').describe('list, search: oldest first (asc, default) or newest first (desc)'),
    after_seq: seqArg("list, search: only events after this seq (for asc paging: the previous page's next_after_seq)").optional(),
    before_seq: seqArg("list, search: only events before this seq (for desc paging: the previous page's next_before_seq)").optional(),
    limit: z
      .number()
      .int()
      .min(1)
      .max(EVENT_LIMITS.max)
      .default(50)
      .describe(`list, search: at most this many events (default 50, at most ${EVENT_LIMITS.max})`),
    seq: z.number().int().min(1).optional().describe('details: the event to read (required for details)'),
    query: z.string().min(1).max(500).optional().describe('search: text to look for, case-insensitive (required for search)'),
    max_content_length: z
      .number()
      .int()
      .min(16)
      .max(1_000_000)
      .optional()
      .describe('Cut payload strings longer than this (default 2000 for list and search, 100000 for details)'),
  })
  .strict();

const output = z.object({
  action: z.enum(EVENT_ACTIONS),
  run_id: z.string(),
  total_events: z.number().int().describe('Events the run has in all'),
  events: z.array(eventSchema),
  next_after_seq: z.number().int().nullable().describe('asc: pass as after_seq for the next page; null when there is none'),
  next_before_seq: z.number().int().nullable().describe('desc: pass as before_seq for the next page; null when there is none'),
  more: z
    .union([z.object({ after_seq: z.number().int() }), z.object({ before_seq: z.number().int() })])
    .nullable()
    .describe(
      'When there is more: the argument to add (with the same action, types and direction) for the next page; null when there is none',
    ),
});

type Args = z.output<typeof input>;

function pageQuery(args: Args, limit: number) {
  return {
    ...(args.after_seq !== undefined ? { afterSeq: args.after_seq } : {}),
    ...(args.before_seq !== undefined ? { beforeSeq: args.before_seq } : {}),
    ...(args.types ? { types: args.types } : {}),
    direction: args.direction,
    limit,
  };
}

/** Pages through the log until `limit` events match `query` or SEARCH_SCAN_LIMIT were read. */
async function search(runs: RunService, args: Args, query: string): Promise<{ events: RunEvent[]; last?: number; more: boolean }> {
  const needle = query.toLowerCase();
  const found: RunEvent[] = [];
  let cursor = args.direction === 'asc' ? args.after_seq : args.before_seq;
  let scanned = 0;
  for (;;) {
    const page = await runs.events(args.run_id, {
      ...pageQuery(args, EVENT_LIMITS.max),
      ...(cursor !== undefined ? (args.direction === 'asc' ? { afterSeq: cursor } : { beforeSeq: cursor }) : {}),
    });
    for (const event of page) {
      scanned += 1;
      cursor = event.seq;
      const text = `${event.type}\n${event.stageId ?? ''}\n${JSON.stringify(event.payload)}`.toLowerCase();
      if (text.includes(needle)) found.push(event);
      if (found.length >= args.limit) return { events: found, last: event.seq, more: true };
    }
    if (page.length < EVENT_LIMITS.max) return { events: found, more: false };
    if (scanned >= SEARCH_SCAN_LIMIT) return { events: found, ...(cursor !== undefined ? { last: cursor } : {}), more: true };
  }
}

export const runEventsTool = defineTool({
  name: 'weft_run_events',
  title: 'Read weft run events',
  description:
    "Read a run's event log (run, stage, tool call, question, approval… events, each with a seq). list: a page, filtered by types, asc or desc, paged with after_seq / before_seq; details: one event by seq in full; search: events containing query. Payload strings are cut to max_content_length.",
  input,
  output,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, { deps }) {
    const runs = await deps.runs();
    const run = await runs.get(args.run_id);
    const base = { action: args.action, run_id: run.id, total_events: run.counts.events };
    const next = (last: number | undefined, more: boolean) => {
      const at = more && last !== undefined ? last : null;
      const asc = args.direction === 'asc';
      return {
        next_after_seq: asc ? at : null,
        next_before_seq: asc ? null : at,
        more: at === null ? null : asc ? { after_seq: at } : { before_seq: at },
      };
    };
    const readOn = (paging: ReturnType<typeof next>) =>
      paging.more
        ? [
            `Read on with weft_run_events ${JSON.stringify({ run_id: run.id, action: args.action, ...(args.types ? { types: args.types } : {}), ...(args.query ? { query: args.query } : {}), direction: args.direction, ...paging.more })}.`,
          ]
        : [];
    switch (args.action) {
      case 'details': {
        const seq = needArg(args.seq, 'details', 'seq');
        const [event] = await runs.events(run.id, { afterSeq: seq - 1, limit: 1 });
        if (!event || event.seq !== seq)
          throw new ToolFailure(
            failure('INVALID_ARGUMENTS', `Run ${run.id} has no event ${args.seq}; its events are 1–${run.counts.events}.`),
          );
        return {
          summary: `Event ${event.seq} of run ${run.id}: ${event.type}${event.stageId ? ` (${event.stageId})` : ''}.`,
          data: { ...base, events: [eventView(event, args.max_content_length ?? 100_000)], ...next(undefined, false) },
        };
      }
      case 'search': {
        const query = needArg(args.query, 'search', 'query');
        const found = await search(runs, args, query);
        const more = found.more ? ' More may match: continue from the next seq.' : '';
        const paging = next(found.last, found.more);
        return {
          summary: `${found.events.length} event${found.events.length === 1 ? '' : 's'} of run ${run.id} match "${args.query}".${more}`,
          data: { ...base, events: found.events.map((event) => eventView(event, args.max_content_length ?? 2000)), ...paging },
          nextSteps: readOn(paging),
        };
      }
      case 'list': {
        const events = await runs.events(run.id, pageQuery(args, args.limit));
        const more = events.length === args.limit;
        const span = events.length > 0 ? ` (seq ${events[0]!.seq}–${events.at(-1)!.seq})` : '';
        const paging = next(events.at(-1)?.seq, more);
        return {
          summary: `${events.length} of ${run.counts.events} events of run ${run.id}${span}.${more ? ' More: pass the next seq.' : ''}`,
          data: { ...base, events: events.map((event) => eventView(event, args.max_content_length ?? 2000)), ...paging },
          nextSteps: readOn(paging),
        };
      }
      default: {
        const unknown: never = args.action;
        throw new ToolFailure(failure('INVALID_ARGUMENTS', `unknown action '${String(unknown)}'.`));
      }
    }
  },
});
