/**
 * `weft_run_pair`: a live conversation with a running agent stage — status, start
 * (stage_id), message, end, transcript. weft has no agent layer yet, so no run ever has
 * an agent stage to pair with: every action but `message` answers NO_ACTIVE_AGENT_STAGE;
 * `message` reaches the run the same way weft_run_interact's does.
 */
import * as z from 'zod';
import { STAGE_ID } from '../../../runs/model/run-event.js';
import { failure } from '../error-codes.js';
import { runSummary, runSummarySchema } from '../run-view.js';
import { defineTool, ToolFailure } from '../tool-kit.js';
import { runIdArg } from './shared-args.js';

export const PAIR_ACTIONS = ['status', 'start', 'message', 'end', 'transcript'] as const;

const input = z
  .object({
    run_id: runIdArg('The run whose agent stage to pair with'),
    action: z
      .enum(PAIR_ACTIONS)
      .describe('status: is a pair session open; start: open one with stage_id; message: send text the agent sees on its next turn; end: close the session; transcript: read what was said'),
    stage_id: z.string().regex(STAGE_ID).optional().describe('start: the agent stage to pair with, e.g. implement@1 (required for start)'),
    text: z.string().min(1).max(64 * 1024).optional().describe('message: the text to send (required for message)'),
  })
  .strict();

const output = z.object({
  action: z.enum(PAIR_ACTIONS),
  run: runSummarySchema.describe('The run after the action'),
  delivered: z.boolean().describe('message: true when the run received the message'),
});

export const NO_ACTIVE_AGENT_STAGE = 'no active agent stage: pairing needs an agent stage; this run has none running';

export const runPairTool = defineTool({
  name: 'weft_run_pair',
  title: 'Pair with a weft agent stage',
  description:
    'Pair with the running agent stage of a run: status, start (stage_id), message (text), end, transcript. Pairing needs an agent stage that is running; message always reaches the run (its agents see it on their next turn).',
  input,
  output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, { deps }) {
    const runs = await deps.runs();
    const run = await runs.get(args.run_id);
    if (args.action === 'message') {
      if (args.text === undefined) throw new ToolFailure(failure('INVALID_ARGUMENTS', "action 'message' needs 'text'."));
      const after = await runs.message(run.id, args.text);
      return { summary: `Sent a message to run ${run.id} (${after.status}).`, data: { action: args.action, run: runSummary(after), delivered: true } };
    }
    if (args.action === 'start' && args.stage_id === undefined) throw new ToolFailure(failure('INVALID_ARGUMENTS', "action 'start' needs 'stage_id' (e.g. implement@1)."));
    throw new ToolFailure(failure('NO_ACTIVE_AGENT_STAGE', `${NO_ACTIVE_AGENT_STAGE} (run ${run.id} is ${run.status}${run.currentStageId ? `, last stage ${run.currentStageId}` : ''}).`, { runId: run.id, status: run.status }));
  },
});
