/**
 * `weft_run_get`: read-only inspection of one run — its summary (the projection of its
 * events) and the questions it is waiting on. Never changes anything.
 */
import * as z from 'zod';
import { runNextSteps } from '../next-steps.js';
import { defineTool } from '../tool-kit.js';
import { questionSchema, questionView, runSummary, runSummarySchema } from '../run-view.js';
import { runIdArg } from './shared-args.js';

const input = z
  .object({
    run_id: runIdArg('The run to read'),
  })
  .strict();

const output = z.object({
  run: runSummarySchema,
  pending_questions: z.array(questionSchema).describe('Questions waiting for an answer, oldest first'),
});

export const runGetTool = defineTool({
  name: 'weft_run_get',
  title: 'Get a weft run',
  description:
    'Read one run without changing it: status (submitted, pending, queued, starting, running, blocked, paused, succeeded, failed, cancelled), goal, labels, parent, current stage, timings, event counts, and the questions it is waiting on (answer them with weft_run_interact action "answer").',
  input,
  output,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run({ run_id }, { deps }) {
    const runs = await deps.runs();
    const run = await runs.get(run_id);
    const questions = run.counts.questionsPending > 0 ? await runs.questions(run_id, true) : [];
    const waiting = questions.length > 0 ? `, ${questions.length} question${questions.length === 1 ? '' : 's'} pending` : '';
    return {
      summary: `Run ${run.id} (${run.workflow}) is ${run.status}${run.reason ? ` — ${run.reason}` : ''}${run.currentStageId ? ` at ${run.currentStageId}` : ''}${waiting}.`,
      data: { run: runSummary(run), pending_questions: questions.map(questionView) },
      nextSteps: runNextSteps(run, questions),
    };
  },
});
