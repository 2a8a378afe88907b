/**
 * `weft_run_gather`: waits until every given run has ended (succeeded, failed or
 * cancelled) or `timeout_seconds` pass, then returns their states and `timed_out`. While
 * it waits it sends progress notifications (when the client gave a progressToken) on
 * every change and every few seconds, so clients that reset their timeout on progress
 * can wait long.
 */
import * as z from 'zod';
import type { RunRecord } from '../../../runs/model/run-record.js';
import { isTerminal } from '../../../runs/model/run-status.js';
import { runPreview, runPreviewSchema } from '../../../app/run-view.js';
import { defineTool } from '../tool-kit.js';
import { runIdArg } from '../../../app/run-args.js';

export const MAX_GATHER_SECONDS = 3600;
const HEARTBEAT_MS = 5000;

const input = z
  .object({
    run_ids: z.array(runIdArg('A run to wait for')).min(1).max(100).describe('The runs to wait for (1–100)'),
    timeout_seconds: z
      .number()
      .min(0)
      .max(MAX_GATHER_SECONDS)
      .default(30)
      .describe(`Give up after this many seconds and return the current states (default 30, at most ${MAX_GATHER_SECONDS}; 0 returns at once). Keep it below your client's request timeout unless it resets the timeout on progress`),
  })
  .strict();

const output = z.object({
  timed_out: z.boolean().describe('True when some runs had not ended when the timeout passed'),
  all_succeeded: z.boolean(),
  runs: z.array(runPreviewSchema).describe('The runs in the order asked, as they are now'),
  ended: z.number().int().describe('How many of the runs have ended'),
});

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
    'Wait until the given runs have ended (succeeded, failed or cancelled) or timeout_seconds pass; returns their current states and timed_out. Runs that wait for a person (blocked, pending) do not end by themselves: answer or approve them with weft_run_interact. Sends progress notifications while waiting.',
  input,
  output,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run({ run_ids, timeout_seconds }, context) {
    const runs = await context.deps.runs();
    let latest: RunRecord[] = [];
    const report = () => context.progress(latest.filter((run) => isTerminal(run.status)).length, latest.length, describeProgress(latest));
    const heartbeat = context.wantsProgress ? setInterval(() => void report(), HEARTBEAT_MS) : undefined;
    try {
      const result = await runs.wait(run_ids, timeout_seconds * 1000, context.signal, (now) => {
        latest = now;
        void report();
      });
      // The final state goes out before the result: a client stops listening for progress once the result arrives.
      latest = result.runs;
      await report();
      const ended = result.runs.filter((run) => isTerminal(run.status)).length;
      const allSucceeded = result.runs.every((run) => run.status === 'succeeded');
      const state = result.runs.map((run) => `${run.id} ${run.status}`).join(', ');
      return {
        summary: result.timedOut ? `Timed out after ${timeout_seconds}s: ${describeProgress(result.runs)}.` : `All ${result.runs.length} runs ended: ${state}.`,
        data: { timed_out: result.timedOut, all_succeeded: allSucceeded, runs: result.runs.map(runPreview), ended },
      };
    } finally {
      clearInterval(heartbeat);
    }
  },
});
