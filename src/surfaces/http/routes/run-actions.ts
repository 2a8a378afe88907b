/**
 * `POST /api/v1/runs/{id}/{action}`: one route per way to steer a run, each one
 * RunService call; the answer is the run afterwards (or the answered question).
 */
import * as z from 'zod';
import { answerArg, messageTextArg, reasonArg, runIdArg } from '../../../app/views/run-args.js';
import { questionSchema, questionView, runSummary } from '../../../app/views/run-view.js';
import type { JsonValue } from '../../../runs/model/json.js';
import type { RunRecord } from '../../../runs/model/run-record.js';
import type { RunService } from '../../../app/services/run-service.js';
import { defineRoute, type ApiRoute } from '../api-route.js';
import { HttpFailure } from '../error-response.js';
import type { HttpDeps } from '../http-deps.js';
import { runAnswer } from './runs.js';

const empty = z.object({}).strict();
const withReason = z.object({ reason: reasonArg.optional() }).strict();

interface Action<B extends z.ZodType> {
  name: string;
  summary: string;
  body: B;
  act(runs: RunService, id: string, body: z.output<B>): Promise<RunRecord>;
}

const action = <B extends z.ZodType>(spec: Action<B>) => spec as unknown as Action<z.ZodType>;

const ACTIONS = [
  action({ name: 'start', summary: 'Start a submitted run, or resume a paused one', body: empty, act: (runs, id) => runs.start(id) }),
  action({ name: 'approve', summary: 'Approve a pending run (it is queued)', body: empty, act: (runs, id) => runs.approve(id) }),
  action({
    name: 'deny',
    summary: 'Deny a pending run (it is cancelled)',
    body: withReason,
    act: (runs, id, body) => runs.deny(id, body.reason),
  }),
  action({
    name: 'message',
    summary: "Send text the run's agents see on their next turn",
    body: z.object({ text: messageTextArg }).strict(),
    act: (runs, id, body) => runs.message(id, body.text),
  }),
  action({ name: 'interrupt', summary: 'Stop the current stages and pause the run', body: empty, act: (runs, id) => runs.interrupt(id) }),
  action({ name: 'cancel', summary: 'End the run', body: withReason, act: (runs, id, body) => runs.cancel(id, body.reason) }),
  action({
    name: 'retry',
    summary: 'Run a failed or cancelled run again from where it stopped',
    body: empty,
    act: (runs, id) => runs.retry(id),
  }),
  action({
    name: 'rewind',
    summary: "Take a failed or cancelled run back to a stage's checkpoint; it runs on from there as a new attempt (nothing is deleted)",
    body: z.object({ to: z.string().min(1).max(200).describe('The stage, e.g. build or build@1') }).strict(),
    act: (runs, id, body) => runs.workspaces.rewind(id, body.to),
  }),
  action({
    name: 'fork',
    summary:
      "A new run from a stage of this one: its files start at that stage's checkpoint, the stages up to it count as done (the answer is the new run)",
    body: z
      .object({
        from: z.string().min(1).max(200).describe('The stage, e.g. plan or plan@2'),
        inputs: z.record(z.string(), z.unknown()).optional().describe('Inputs that differ from the original run'),
      })
      .strict(),
    act: (runs, id, body) =>
      runs.workspaces.fork(id, { fromStage: body.from, ...(body.inputs === undefined ? {} : { inputs: body.inputs }) }),
  }),
  action({
    name: 'archive',
    summary: 'Hide an ended run from lists (archived: false shows it again)',
    body: z.object({ archived: z.boolean().default(true) }).strict(),
    act: (runs, id, body) => runs.archive(id, body.archived),
  }),
];

const answerBody = z
  .object({
    question_id: runIdArg('The question to answer (from pending_question_ids)'),
    answer: answerArg,
  })
  .strict();

export function runActionRoutes(deps: HttpDeps): ApiRoute[] {
  return [
    ...ACTIONS.map((spec) =>
      defineRoute({
        method: 'post',
        path: `/runs/{id}/${spec.name}`,
        summary: spec.summary,
        body: spec.body,
        response: runAnswer,
        async handle({ params, body }) {
          return { json: { run: runSummary(await spec.act(await deps.runs(), params.id!, body)) } };
        },
      }),
    ),
    defineRoute({
      method: 'post',
      path: '/runs/{id}/answer',
      summary: 'Answer a pending question (409 when it is already answered)',
      body: answerBody,
      response: z.object({ question: questionSchema }),
      async handle({ params, body }) {
        const runs = await deps.runs();
        const answer = body.answer;
        if (answer === undefined)
          throw new HttpFailure(
            'INVALID_ARGUMENTS',
            'Invalid body: answer is required (true/false, an option, a list of options, or text).',
          );
        const question =
          typeof answer === 'string'
            ? await runs.answerText(params.id!, body.question_id, answer)
            : await runs.answer(params.id!, body.question_id, answer as JsonValue);
        return { json: { question: questionView(question) } };
      },
    }),
  ];
}
