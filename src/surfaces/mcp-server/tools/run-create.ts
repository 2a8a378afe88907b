/**
 * `weft_run_create`: creates 1–50 runs in one call, each from a workflow file. Runs are
 * started by default (they wait in `pending` for approval unless auto-approved) and are
 * executed by a separate runner process, so they go on when the client disconnects.
 */
import * as z from 'zod';
import type { RunRecord } from '../../../runs/model/run-record.js';
import { describeFailure, toFailure, type McpFailure } from '../error-codes.js';
import { runSummary, runSummarySchema } from '../../../app/views/run-view.js';
import { attentionOf, runNextSteps } from '../next-steps.js';
import { defineTool, ToolFailure } from '../tool-kit.js';
import { createRunRequest, newRunSchema, workflowArg, type NewRunArgs } from '../../../app/views/run-args.js';

export const MAX_RUNS_PER_CREATE = 50;

const input = z
  .object({
    runs: z
      .array(z.union([workflowArg, newRunSchema]))
      .min(1)
      .max(MAX_RUNS_PER_CREATE)
      .describe(`The runs to create (1–${MAX_RUNS_PER_CREATE}): each a workflow file path, or an object with options`),
  })
  .strict();

const resultSchema = z.object({
  index: z.number().int().describe('Position in the runs argument'),
  ok: z.boolean(),
  run: runSummarySchema.nullable().describe('The created run (null when creation failed)'),
  error: z.object({ code: z.string(), message: z.string() }).nullable().describe('Why creation failed (null when it worked)'),
});

const output = z.object({
  created: z.number().int(),
  failed: z.number().int(),
  results: z.array(resultSchema).describe('One entry per requested run, in order'),
});

type RunArg = NewRunArgs;
type Outcome = { index: number; run: RunRecord } | { index: number; failed: McpFailure };

function describeRun(run: RunRecord): string {
  switch (run.status) {
    case 'pending':
      return `${run.id} (pending approval)`;
    case 'submitted':
      return `${run.id} (not started)`;
    default:
      return `${run.id} (${run.status})`;
  }
}

export const runCreateTool = defineTool({
  name: 'weft_run_create',
  title: 'Create weft runs',
  description: [
    `Create 1–${MAX_RUNS_PER_CREATE} runs of workflow files. Each entry is a workflow path ("ci.toml") or an object with options.`,
    'Started runs wait in "pending" until approved (weft_run_interact action "approve") unless auto_approve is true; then a background runner executes them, independent of this connection.',
    "Use goal or goal_file (not both); relative paths resolve from cwd, or from the server's working directory when cwd is omitted. Follow runs with weft_run_gather or weft_run_get.",
  ].join(' '),
  input,
  output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run({ runs: items }, { deps }) {
    const runs = await deps.runs();
    const outcomes: Outcome[] = await Promise.all(
      items.map(async (raw, index): Promise<Outcome> => {
        const item: RunArg = typeof raw === 'string' ? { workflow: raw, start: true } : raw;
        if (item.goal !== undefined && item.goal_file !== undefined) {
          return {
            index,
            failed: { code: 'INVALID_ARGUMENTS', message: `runs.${index}: give either goal or goal_file, not both.`, data: {} },
          };
        }
        try {
          return { index, run: await runs.create(createRunRequest(item, deps.cwd)) };
        } catch (error) {
          return { index, failed: toFailure(error) };
        }
      }),
    );
    const failures = outcomes.flatMap((outcome) => ('failed' in outcome ? [outcome] : []));
    const created = outcomes.flatMap((outcome) => ('run' in outcome ? [outcome.run] : []));
    const results = outcomes.map((outcome) =>
      'run' in outcome
        ? { index: outcome.index, ok: true, run: runSummary(outcome.run), error: null }
        : { index: outcome.index, ok: false, run: null, error: { code: outcome.failed.code, message: describeFailure(outcome.failed) } },
    );
    const failedText = failures.map((outcome) => `[${outcome.index}] ${describeFailure(outcome.failed)}`).join(' ');
    if (created.length === 0) {
      const first = failures[0]!.failed;
      const message = items.length === 1 ? first.message : `None of the ${items.length} runs was created: ${failedText}`;
      throw new ToolFailure({ code: first.code, message, data: { results } });
    }
    const approve = created.some((run) => run.status === 'pending') ? ' Approve pending runs with weft_run_interact action "approve".' : '';
    const waiting = created.filter((run) => attentionOf(run) === undefined).map((run) => run.id);
    const nextSteps = [
      ...created.filter((run) => attentionOf(run) !== undefined).flatMap((run) => runNextSteps(run)),
      ...(waiting.length > 0 ? [`Wait for the runs with weft_run_gather ${JSON.stringify({ run_ids: waiting })}.`] : []),
    ];
    const summary =
      failures.length === 0
        ? `Created ${created.length === 1 ? 'run' : `${created.length} runs:`} ${created.map(describeRun).join(', ')}.${approve}`
        : `Created ${created.length} of ${items.length} runs (${created.map(describeRun).join(', ')}); ${failures.length} failed: ${failedText}${approve}`;
    return { summary, data: { created: created.length, failed: failures.length, results }, nextSteps };
  },
});
