/**
 * `weft_run_gather`: waits until every given run has ended (succeeded, failed or
 * cancelled), one needs a person (a question, an approval, a start), or `timeout_seconds`
 * pass, then returns their states, what each waiting run needs, and `timed_out`. While
 * it waits it sends progress notifications (when the client gave a progressToken) on
 * every change and every few seconds, so clients that reset their timeout on progress
 * can wait long.
 */
import * as z from 'zod';
import type { RunRecord } from '../../../runs/model/run-record.js';
import { isTerminal } from '../../../runs/model/run-status.js';
import type { RunService } from '../../../app/services/run-service.js';
import { attentionOf, runNextSteps } from '../next-steps.js';
import { readWholeOutputSteps, runResultsSchema, runResultsView } from '../run-results-view.js';
import { questionSchema, questionView, runPreview, runPreviewSchema } from '../../../app/views/run-view.js';
import { defineTool } from '../tool-kit.js';
import { runIdArg } from '../../../app/views/run-args.js';

export const MAX_GATHER_SECONDS = 3600;
const HEARTBEAT_MS = 5000;
/** Smaller than weft_run_get's: a gather answers for up to 100 runs. */
const BOUNDS = { headChars: 500, maxStages: 20 };

const input = z
  .object({
    run_ids: z.array(runIdArg('A run to wait for')).min(1).max(100).describe('The runs to wait for (1–100)'),
    timeout_seconds: z
      .number()
      .min(0)
      .max(MAX_GATHER_SECONDS)
      .default(30)
      .describe(
        `Give up after this many seconds and return the current states (default 30, at most ${MAX_GATHER_SECONDS}; 0 returns at once). Keep it below your client's request timeout unless it resets the timeout on progress`,
      ),
  })
  .strict();

const output = z.object({
  timed_out: z.boolean().describe('True when some runs had not ended when the timeout passed'),
  all_succeeded: z.boolean(),
  runs: z.array(runPreviewSchema).describe('The runs in the order asked, as they are now'),
  ended: z.number().int().describe('How many of the runs have ended'),
  results: z
    .array(runResultsSchema.extend({ run_id: z.string() }))
    .describe('What each run produced so far, in the order asked: final output and stages with their output heads'),
  needs_attention: z
    .array(
      z.object({
        run_id: z.string(),
        needs: z
          .enum(['approval', 'question', 'start'])
          .describe('approval: approve or deny it; question: answer its questions; start: start or resume it'),
        questions: z.array(questionSchema).describe('question: the pending questions with their id, kind and options'),
      }),
    )
    .describe('Runs that cannot go on until someone acts; gather returns as soon as there is one'),
});

type Attention = z.input<typeof output>['needs_attention'][number];

async function attentionList(runs: RunService, records: readonly RunRecord[]): Promise<{ items: Attention[]; steps: string[] }> {
  const items: Attention[] = [];
  const steps: string[] = [];
  for (const run of records) {
    const needs = attentionOf(run);
    if (needs === undefined) continue;
    const questions = needs === 'question' ? await runs.questions(run.id, true) : [];
    items.push({ run_id: run.id, needs, questions: questions.map(questionView) });
    steps.push(...runNextSteps(run, questions));
  }
  return { items, steps };
}

function describeProgress(runs: readonly RunRecord[]): string {
  const open = runs.filter((run) => !isTerminal(run.status));
  const ended = runs.length - open.length;
  const waiting = open.slice(0, 3).map((run) => `${run.id} ${run.status}${run.currentStageId ? ` at ${run.currentStageId}` : ''}`);
  return `${ended}/${runs.length} runs ended${waiting.length > 0 ? `; waiting for ${waiting.join(', ')}${open.length > 3 ? ', …' : ''}` : ''}`;
}

export const runGatherTool = defineTool({
  name: 'weft_run_gather',
  title: 'Wait for weft runs',
  description:
    "Wait until the given runs have ended (succeeded, failed or cancelled), one of them needs a person, or timeout_seconds pass; returns their current states, what each produced (final output, each stage's status and output head), timed_out, and needs_attention: each run waiting for an approval, an answer (its questions with id, kind and options) or a start. Act on those with weft_run_interact, then gather again. Sends progress notifications while waiting.",
  input,
  output,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run({ run_ids, timeout_seconds }, context) {
    const runs = await context.deps.runs();
    let latest: RunRecord[] = [];
    const report = () => context.progress(latest.filter((run) => isTerminal(run.status)).length, latest.length, describeProgress(latest));
    const heartbeat = context.wantsProgress ? setInterval(() => void report(), HEARTBEAT_MS) : undefined;
    try {
      const result = await runs.wait(
        run_ids,
        timeout_seconds * 1000,
        context.signal,
        (now) => {
          latest = now;
          void report();
        },
        (now) => now.some((run) => attentionOf(run) !== undefined),
      );
      // The final state goes out before the result: a client stops listening for progress once the result arrives.
      latest = result.runs;
      await report();
      const ended = result.runs.filter((run) => isTerminal(run.status)).length;
      const allSucceeded = result.runs.every((run) => run.status === 'succeeded');
      const state = result.runs.map((run) => `${run.id} ${run.status}`).join(', ');
      const attention = await attentionList(runs, result.runs);
      const results = await Promise.all(
        result.runs.map(async (run) => ({ run_id: run.id, ...runResultsView(await runs.results(run.id), BOUNDS) })),
      );
      const summary =
        attention.items.length > 0
          ? `${attention.items.length} run${attention.items.length === 1 ? ' needs' : 's need'} attention (${attention.items.map((item) => `${item.run_id}: ${item.needs}`).join(', ')}); ${describeProgress(result.runs)}.`
          : result.timedOut
            ? `Timed out after ${timeout_seconds}s: ${describeProgress(result.runs)}.`
            : `All ${result.runs.length} runs ended: ${state}.`;
      const open = result.runs.filter((run) => !isTerminal(run.status) && attentionOf(run) === undefined);
      const keepWaiting = open.length > 0 ? [`Keep waiting with weft_run_gather ${JSON.stringify({ run_ids })}.`] : [];
      const failed = result.runs.filter((run) => run.status === 'failed').flatMap((run) => runNextSteps(run));
      return {
        summary,
        data: {
          timed_out: result.timedOut,
          all_succeeded: allSucceeded,
          runs: result.runs.map(runPreview),
          ended,
          results,
          needs_attention: attention.items,
        },
        nextSteps: [...attention.steps, ...failed, ...keepWaiting, ...results.flatMap((view) => readWholeOutputSteps(view.run_id, view))],
      };
    } finally {
      clearInterval(heartbeat);
    }
  },
});
