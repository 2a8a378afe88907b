/**
 * `weft_run_get`: read-only inspection of one run — its summary (the projection of its
 * events), the questions it is waiting on, and what it produced (final output, each
 * stage's status and output head). Never changes anything.
 */
import * as z from 'zod';
import { runNextSteps } from '../next-steps.js';
import { readWholeOutputSteps, runResultsSchema, runResultsView } from '../run-results-view.js';
import { defineTool } from '../tool-kit.js';
import { questionSchema, questionView, runSummary, runSummarySchema } from '../../../app/views/run-view.js';
import { runIdArg } from '../../../app/views/run-args.js';
import { runSandboxJson, runSandboxSchema } from '../../../app/views/sandbox-view.js';

const input = z
  .object({
    run_id: runIdArg('The run to read'),
  })
  .strict();

const output = z.object({
  run: runSummarySchema,
  pending_questions: z.array(questionSchema).describe('Questions waiting for an answer, oldest first'),
  sandbox: runSandboxSchema,
  results: runResultsSchema.describe("What the run produced: its final output and each stage's status with the head of its output"),
});

const BOUNDS = { headChars: 2000, maxStages: 50 };

export const runGetTool = defineTool({
  name: 'weft_run_get',
  title: 'Get a weft run',
  description:
    'Read one run without changing it: status (submitted, pending, queued, starting, running, blocked, paused, succeeded, failed, cancelled), goal, labels, parent, current stage, timings, event counts, the questions it is waiting on (answer them with weft_run_interact action "answer"), whether it runs in the OS sandbox and with which rules, and its results: the final output and each stage\'s status, error and output head (whole outputs through weft_run_events action "details").',
  input,
  output,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run({ run_id }, { deps }) {
    const runs = await deps.runs();
    const run = await runs.get(run_id);
    const questions = run.counts.questionsPending > 0 ? await runs.questions(run_id, true) : [];
    const [results, sandbox] = await Promise.all([runs.results(run_id).then((found) => runResultsView(found, BOUNDS)), runs.sandbox(run)]);
    const said =
      results.final_output_head === null
        ? ''
        : ` Output of ${results.final_stage_id}: ${results.final_output_head.slice(0, 200)}${results.final_output_head.length > 200 || results.final_output_truncated ? '…' : ''}`;
    const waiting = questions.length > 0 ? `, ${questions.length} question${questions.length === 1 ? '' : 's'} pending` : '';
    return {
      summary: `Run ${run.id} (${run.workflow}) is ${run.status}${run.reason ? ` — ${run.reason}` : ''}${run.currentStageId ? ` at ${run.currentStageId}` : ''}${waiting}.${said}`,
      data: { run: runSummary(run), pending_questions: questions.map(questionView), sandbox: runSandboxJson(sandbox), results },
      nextSteps: [...runNextSteps(run, questions), ...readWholeOutputSteps(run.id, results)],
    };
  },
});
