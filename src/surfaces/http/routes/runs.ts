/**
 * `/api/v1/runs`: list (filters, text, cursor pages, newest first; or its changes live, see
 * `run-list-stream.ts`), create (a workflow path
 * or inline TOML), read one run with its stages, delete, and its questions. Bodies are
 * the MCP tools' argument schemas; answers are the same views.
 */
import * as z from 'zod';
import { newRunFields, createRunRequest, labelsArg } from '../../../app/views/run-args.js';
import { RunDetails, runDetailSchema } from '../../../app/views/run-detail.js';
import { runSearchQuery } from '../../../app/views/run-search-query.js';
import { searchRunsByText } from '../../../app/services/run-text-search.js';
import {
  questionSchema,
  questionView,
  runPreview,
  runPreviewSchema,
  runSummary,
  runSummarySchema,
  runStatusSchema,
} from '../../../app/views/run-view.js';
import { saveInlineWorkflow } from '../../../app/services/inline-workflow.js';
import { SEARCH_LIMITS } from '../../../runs/store/run-store.js';
import { defineRoute, type ApiRoute } from '../api-route.js';
import { runDiffSchema, runDiffView } from '../../../app/views/run-diff-view.js';
import { HttpFailure } from '../error-response.js';
import type { HttpDeps } from '../http-deps.js';
import { runListStreams } from './run-list-stream.js';
import { wantsEventStream } from './sse-stream.js';

const MAX_INLINE_WORKFLOW = 256 * 1024;

const commaList = <T extends z.ZodType<unknown, string>>(item: T) =>
  z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== ''),
    )
    .pipe(z.array(item).min(1));

const listQuery = z
  .object({
    status: commaList(runStatusSchema).optional().describe('Comma-separated states, e.g. running,blocked'),
    label: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .describe('key=value; repeat for several (all must match)'),
    workflow: z.string().min(1).optional().describe('Workflow name'),
    parent_id: z.string().min(1).optional().describe('Only the children of this run (its id or a unique prefix)'),
    created_after: z.string().min(1).optional().describe('ISO 8601 time'),
    created_before: z.string().min(1).optional().describe('ISO 8601 time'),
    text: z.string().max(200).optional().describe('Text in the id, workflow, goal or labels (case-insensitive)'),
    archived: z.enum(['false', 'true', 'any']).default('false').describe('false (default) hides archived runs'),
    limit: z.coerce.number().int().min(1).max(SEARCH_LIMITS.max).default(SEARCH_LIMITS.default),
    cursor: z.string().min(1).optional().describe('next_cursor of the previous page'),
  })
  .strict();

const listAnswer = z.object({ runs: z.array(runPreviewSchema).describe('Newest first'), next_cursor: z.string().nullable() });

const createBody = z
  .object({
    ...newRunFields,
    workflow: newRunFields.workflow.optional().describe('Workflow file (TOML), relative to the workspace; or give workflow_toml'),
    workflow_toml: z.string().min(1).max(MAX_INLINE_WORKFLOW).optional().describe('The workflow itself, as TOML text; or give workflow'),
  })
  .strict();

const runAnswer = z.object({ run: runSummarySchema });
const runIdParams = { id: 'Run id (ULID)' };

function labelFilter(label: string | string[] | undefined): Record<string, string> | undefined {
  if (label === undefined) return undefined;
  const pairs = (Array.isArray(label) ? label : [label]).map((item) => {
    const at = item.indexOf('=');
    if (at <= 0) throw new HttpFailure('INVALID_ARGUMENTS', `Invalid query: label '${item.slice(0, 80)}' must be key=value.`);
    return [item.slice(0, at), item.slice(at + 1)] as const;
  });
  return labelsArg.parse(Object.fromEntries(pairs));
}

export function runRoutes(deps: HttpDeps): ApiRoute[] {
  // The stage folds of recently read runs: a run page polled while its run goes on reads only the new events.
  const details = new RunDetails();
  const streamList = runListStreams(deps);
  return [
    defineRoute({
      method: 'get',
      path: '/runs',
      summary:
        'List runs, newest first, by status, labels, workflow, creation time and text; one page at a time — or with Accept: text/event-stream the changes of that list, live, resuming after Last-Event-ID',
      query: listQuery,
      response: listAnswer,
      produces: {
        'text/event-stream':
          'Changed runs: event: run (in the list) or run-left (no longer matches), id: <updated_at in epoch ms>, data: <the run as in runs[]>',
      },
      async handle({ query, context }) {
        const labels = labelFilter(query.label);
        const filter = runSearchQuery(
          { ...query, labels, archived: query.archived === 'any' ? 'any' : query.archived === 'true' },
          (message) => new HttpFailure('INVALID_ARGUMENTS', `Invalid query: ${message}`),
        );
        if (wantsEventStream(context)) return streamList(context, filter, query.text);
        const runs = await deps.runs();
        const page = query.text ? await searchRunsByText(runs, filter, query.text) : await runs.search(filter);
        return { json: { runs: page.runs.map(runPreview), next_cursor: page.nextCursor ?? null } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/runs',
      summary: 'Create a run from a workflow file or inline TOML; it starts (pending approval unless auto_approve) unless start is false',
      body: createBody,
      response: runAnswer,
      status: 201,
      async handle({ body }) {
        const { workflow_toml: toml, workflow, ...rest } = body;
        if ((toml === undefined) === (workflow === undefined))
          throw new HttpFailure(
            'INVALID_ARGUMENTS',
            'Invalid body: give either workflow (a file path) or workflow_toml (the workflow as text), not both or neither.',
          );
        if (rest.goal !== undefined && rest.goal_file !== undefined)
          throw new HttpFailure('INVALID_ARGUMENTS', 'Invalid body: give either goal or goal_file, not both.');
        const path = toml !== undefined ? await saveInlineWorkflow(deps.storageDir, toml) : workflow!;
        // An inline workflow is saved in the storage dir, outside every run's directory, by weft itself.
        const request = { ...createRunRequest({ ...rest, workflow: path }, deps.workspaceRoot), workflowInsideCwd: toml === undefined };
        const run = await (await deps.runs()).create(request);
        return { status: 201, json: { run: runSummary(run) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/runs/{id}',
      summary: 'Read one run: summary, stages with state, timings and output first lines, pending questions, token totals',
      response: runDetailSchema,
      async handle({ params }) {
        return { json: await details.read(await deps.runs(), params.id!) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/runs/{id}',
      summary: 'Delete an ended run with its events and questions',
      status: 204,
      async handle({ params }) {
        await (await deps.runs()).remove(params.id!);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/runs/{id}/diff',
      summary: "What a run changed in its workspace since its base, or what one stage's checkpoint changed (stage=build or build@2)",
      query: z.object({ stage: z.string().min(1).max(200).optional(), stat: z.enum(['true', 'false']).default('false') }).strict(),
      response: runDiffSchema,
      async handle({ params, query }) {
        const diff = await (
          await deps.runs()
        ).workspaces.diff(params.id!, { ...(query.stage === undefined ? {} : { stage: query.stage }), stat: query.stat === 'true' });
        return { json: runDiffView(diff) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/runs/{id}/questions',
      summary: "A run's questions (pending ones by default)",
      query: z.object({ pending: z.enum(['true', 'false']).default('true') }).strict(),
      response: z.object({ questions: z.array(questionSchema) }),
      async handle({ params, query }) {
        const questions = await (await deps.runs()).questions(params.id!, query.pending === 'true');
        return { json: { questions: questions.map(questionView) } };
      },
    }),
  ];
}

export { runAnswer, runIdParams };
