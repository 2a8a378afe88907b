/**
 * `weft_run_search`: finds runs by id, parent, workflow, labels, status, archive state and
 * creation time, newest first, one page at a time (`next_cursor`). Returns previews —
 * the goal's first line, not the whole run; read one run with weft_run_get.
 */
import * as z from 'zod';
import { runSearchQuery } from '../../../app/views/run-search-query.js';
import { RUN_STATUSES } from '../../../runs/model/run-status.js';
import { SEARCH_LIMITS } from '../../../runs/store/run-store.js';
import { failure } from '../error-codes.js';
import { runPreview, runPreviewSchema, runStatusSchema } from '../../../app/views/run-view.js';
import { defineTool, ToolFailure } from '../tool-kit.js';
import { labelsArg, runIdArg } from '../../../app/views/run-args.js';

const time = (what: string) => z.string().min(1).describe(`${what} (ISO 8601, e.g. 2025-06-01T12:00:00Z)`);

const input = z
  .object({
    ids: z.array(runIdArg('A run')).min(1).max(SEARCH_LIMITS.max).optional().describe('Only these runs'),
    parent_id: runIdArg('Only the direct children of this run').optional(),
    workflow: z.string().min(1).optional().describe('Only runs of this workflow (its name)'),
    labels: labelsArg.optional().describe('Only runs carrying every one of these labels'),
    status: z
      .array(runStatusSchema)
      .min(1)
      .optional()
      .describe(`Only runs in one of these states (${RUN_STATUSES.join(', ')})`),
    archived: z
      .union([z.boolean(), z.literal('any')])
      .default(false)
      .describe('false (default) hides archived runs, true returns only archived runs, "any" returns both'),
    created_after: time('Only runs created after this time').optional(),
    created_before: time('Only runs created before this time').optional(),
    limit: z.number().int().min(1).max(SEARCH_LIMITS.max).default(20).describe(`Page size (default 20, at most ${SEARCH_LIMITS.max})`),
    cursor: z.string().min(1).optional().describe('next_cursor of the previous page, unchanged; omit for the first page'),
  })
  .strict();

const output = z.object({
  runs: z.array(runPreviewSchema).describe('Newest first'),
  next_cursor: z.string().nullable().describe('Pass as cursor to get the next page; null on the last page'),
  more: z
    .object({ cursor: z.string() })
    .nullable()
    .describe('When more runs match: the arguments to add for the next page; null on the last page'),
});

export const runSearchTool = defineTool({
  name: 'weft_run_search',
  title: 'Search weft runs',
  description:
    'Find runs, newest first: by ids, parent_id (direct children), workflow, labels (all must match), status, archived (hidden by default) and creation time. Returns previews and next_cursor for the next page; read a run in full with weft_run_get.',
  input,
  output,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, { deps }) {
    const page = await (
      await deps.runs()
    ).search(runSearchQuery(args, (message) => new ToolFailure(failure('INVALID_ARGUMENTS', message))));
    const more = page.nextCursor ? ' More match: pass next_cursor as cursor.' : '';
    const counts = new Map<string, number>();
    for (const run of page.runs) counts.set(run.status, (counts.get(run.status) ?? 0) + 1);
    const breakdown = [...counts].map(([status, count]) => `${count} ${status}`).join(', ');
    return {
      summary:
        page.runs.length === 0
          ? `No runs match.${args.archived === false ? ' (Archived runs are hidden: pass archived "any" to include them.)' : ''}`
          : `${page.runs.length} run${page.runs.length === 1 ? '' : 's'} (${breakdown}).${more}`,
      data: {
        runs: page.runs.map(runPreview),
        next_cursor: page.nextCursor ?? null,
        more: page.nextCursor ? { cursor: page.nextCursor } : null,
      },
      nextSteps: page.nextCursor
        ? [`Get the next page with weft_run_search and the same filters plus ${JSON.stringify({ cursor: page.nextCursor })}.`]
        : [],
    };
  },
});
