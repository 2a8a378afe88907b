/**
 * `weft_run_interact`: every way to steer one run, picked by `action` — start, approve,
 * deny, message, signal, interrupt, cancel, retry, archive, unarchive, link_parent,
 * unlink_parent, get_questions, answer. Each maps to one RunService call; the result is
 * the run as it is afterwards (plus the questions or the answered question).
 */
import * as z from 'zod';
import type { JsonValue } from '../../../runs/model/json.js';
import type { QuestionRecord } from '../../../runs/model/question.js';
import type { RunRecord } from '../../../runs/model/run-record.js';
import type { RunService } from '../../../app/services/run-service.js';
import { failure } from '../error-codes.js';
import { questionSchema, questionView, runSummary, runSummarySchema } from '../../../app/views/run-view.js';
import { runNextSteps } from '../next-steps.js';
import { defineTool, needArg, ToolFailure } from '../tool-kit.js';
import { answerArg, messageTextArg, reasonArg, runIdArg } from '../../../app/views/run-args.js';

export const INTERACT_ACTIONS = [
  'start',
  'approve',
  'deny',
  'message',
  'signal',
  'interrupt',
  'cancel',
  'retry',
  'rewind',
  'fork',
  'archive',
  'unarchive',
  'link_parent',
  'unlink_parent',
  'get_questions',
  'answer',
] as const;

const input = z
  .object({
    run_id: runIdArg('The run to act on'),
    action: z
      .enum(INTERACT_ACTIONS)
      .describe(
        "start: start a submitted run or resume a paused one; approve / deny: decide a pending run; message: send text the run's agents see on their next turn; signal: send the event a wait stage awaits (event, data); interrupt: stop the current stages and pause; cancel: end the run; retry: run a failed or cancelled run again from where it stopped; rewind: take a failed or cancelled run back to a stage's checkpoint (stage) and run on from there, nothing deleted; fork: a new run from a stage (stage, inputs) whose files start at that checkpoint, the stages up to it done; archive / unarchive: hide or show an ended run in searches; link_parent / unlink_parent: change the parent run; get_questions: list its questions; answer: answer a question",
      ),
    reason: reasonArg.optional().describe('deny, cancel: why (recorded on the run)'),
    text: messageTextArg.optional().describe('message: the text to send (required for message)'),
    event: z.string().min(1).max(200).optional().describe('signal: the event name a wait stage of the run awaits (required for signal)'),
    data: z.unknown().optional().describe('signal: a JSON value the wait stage gets as its output (default null)'),
    parent_id: runIdArg('link_parent: the new parent run (required for link_parent)').optional(),
    question_id: runIdArg('answer: the question to answer (from pending_question_ids or get_questions; required for answer)').optional(),
    answer: answerArg
      .optional()
      .describe(
        'answer: the answer (required for answer); true/false for yes_no and confirmation, one option for choice, an array of options for multi_select, text for freeform; text like "yes" or "a,b" is converted',
      ),
    stage: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('rewind, fork: the stage, e.g. build (its latest attempt) or build@2 (required for rewind and fork)'),
    inputs: z.record(z.string(), z.unknown()).optional().describe('fork: inputs that differ from the original run'),
    pending_only: z.boolean().default(true).describe('get_questions: only unanswered questions (default true)'),
  })
  .strict();

const output = z.object({
  action: z.enum(INTERACT_ACTIONS),
  run: runSummarySchema.describe('The run after the action'),
  questions: z.array(questionSchema).nullable().describe('get_questions: the questions; null for other actions'),
  question: questionSchema.nullable().describe('answer: the answered question; null for other actions'),
});

type Args = z.output<typeof input>;

interface Done {
  run: RunRecord;
  questions?: QuestionRecord[];
  question?: QuestionRecord;
  summary: string;
}

async function act(runs: RunService, args: Args): Promise<Done> {
  const id = args.run_id;
  const { action } = args;
  switch (action) {
    case 'start': {
      const run = await runs.start(id);
      return {
        run,
        summary: run.status === 'pending' ? `Started run ${id}; it is pending approval.` : `Started run ${id} (${run.status}).`,
      };
    }
    case 'approve': {
      const run = await runs.approve(id);
      return { run, summary: `Approved run ${id}; it is ${run.status} and a runner will execute it.` };
    }
    case 'deny': {
      const run = await runs.deny(id, args.reason);
      return { run, summary: `Denied run ${id}; it is ${run.status}.` };
    }
    case 'message': {
      const run = await runs.message(id, needArg(args.text, action, 'text'));
      return { run, summary: `Sent a message to run ${id} (${run.status}).` };
    }
    case 'signal': {
      const event = needArg(args.event, action, 'event');
      const run = await runs.signal(id, event, (args.data ?? null) as JsonValue);
      return { run, summary: `Sent '${event}' to run ${id} (${run.status}).` };
    }
    case 'interrupt': {
      const run = await runs.interrupt(id);
      return { run, summary: `Interrupt requested for run ${id}; it pauses once its current stages stop (resume with action "start").` };
    }
    case 'cancel': {
      const run = await runs.cancel(id, args.reason);
      return { run, summary: `Cancel requested for run ${id} (${run.status}).` };
    }
    case 'retry': {
      const run = await runs.retry(id);
      return { run, summary: `Retrying run ${id} (attempt ${run.attempt}, ${run.status}).` };
    }
    case 'rewind': {
      const run = await runs.workspaces.rewind(id, needArg(args.stage, action, 'stage'));
      return { run, summary: `Rewound run ${run.id} to ${args.stage ?? ''}; it runs on from that checkpoint (${run.status}).` };
    }
    case 'fork': {
      const run = await runs.workspaces.fork(id, {
        fromStage: needArg(args.stage, action, 'stage'),
        ...(args.inputs === undefined ? {} : { inputs: args.inputs }),
      });
      return {
        run,
        summary: `Forked run ${run.id} from ${args.stage ?? ''} of run ${id} (${run.status}${run.status === 'pending' ? '; approve it to start' : ''}).`,
      };
    }
    case 'archive':
    case 'unarchive': {
      const run = await runs.archive(id, action === 'archive');
      return { run, summary: `${action === 'archive' ? 'Archived' : 'Unarchived'} run ${id}.` };
    }
    case 'link_parent': {
      const parent = needArg(args.parent_id, action, 'parent_id');
      const run = await runs.setParent(id, parent);
      return { run, summary: `Run ${id} is now a child of ${parent}.` };
    }
    case 'unlink_parent': {
      const run = await runs.setParent(id, null);
      return { run, summary: `Run ${id} has no parent now.` };
    }
    case 'get_questions': {
      const questions = await runs.questions(id, args.pending_only);
      const run = await runs.get(id);
      const kind = args.pending_only ? 'pending ' : '';
      return {
        run,
        questions,
        summary:
          questions.length === 0
            ? `Run ${id} has no ${kind}questions.`
            : `Run ${id} has ${questions.length} ${kind}question${questions.length === 1 ? '' : 's'}: ${questions.map((q) => `${q.id} "${q.prompt.slice(0, 60)}"`).join(', ')}.`,
      };
    }
    case 'answer': {
      const questionId = needArg(args.question_id, action, 'question_id');
      const answer = needArg(args.answer, action, 'answer');
      const question =
        typeof answer === 'string' ? await runs.answerText(id, questionId, answer) : await runs.answer(id, questionId, answer as JsonValue);
      return {
        run: await runs.get(id),
        question,
        summary: `Answered question ${questionId} of run ${id}: ${JSON.stringify(question.answer)}.`,
      };
    }
    default: {
      const unknown: never = action;
      throw new ToolFailure(failure('INVALID_ARGUMENTS', `unknown action '${String(unknown)}'.`));
    }
  }
}

export const runInteractTool = defineTool({
  name: 'weft_run_interact',
  title: 'Steer a weft run',
  description:
    'Act on one run: start, approve, deny (reason), message (text), signal (event, data), interrupt, cancel (reason), retry, rewind (stage), fork (stage, inputs; returns the new run), archive, unarchive, link_parent (parent_id), unlink_parent, get_questions, answer (question_id, answer). Returns the run afterwards. Runs waiting for a person are "blocked"; answer their pending_question_ids.',
  input,
  output,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(args, { deps }) {
    const done = await act(await deps.runs(), args);
    return {
      summary: done.summary,
      data: {
        action: args.action,
        run: runSummary(done.run),
        questions: done.questions ? done.questions.map(questionView) : null,
        question: done.question ? questionView(done.question) : null,
      },
      nextSteps: runNextSteps(done.run, done.questions ?? []),
    };
  },
});
