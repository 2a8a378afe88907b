/**
 * `POST /api/v1/runs/{id}/pair`: pairing with a running agent stage from the dashboard —
 * start a session, send it a message, end it; the same calls as `weft_run_pair`.
 */
import * as z from 'zod';
import { pairSessionSchema, pairSessionView, runSummary, runSummarySchema } from '../../../app/views/run-view.js';
import { STAGE_ID } from '../../../runs/model/run-event.js';
import { MAX_PAIR_MESSAGE_LENGTH } from '../../../app/services/pair-service.js';
import { defineRoute, type ApiRoute } from '../api-route.js';
import { HttpFailure } from '../error-response.js';
import type { HttpDeps } from '../http-deps.js';

const body = z
  .object({
    action: z.enum(['start', 'message', 'end']),
    stage_id: z
      .string()
      .regex(STAGE_ID)
      .optional()
      .describe('start: the agent stage, e.g. implement@1 (may be omitted when exactly one runs)'),
    session_id: z.string().min(1).max(64).optional().describe('message, end: the open session'),
    text: z.string().min(1).max(MAX_PAIR_MESSAGE_LENGTH).optional().describe('message: the text (required)'),
  })
  .strict();

export function runPairRoutes(deps: HttpDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/runs/{id}/pair',
      summary: 'Pair with a running agent stage: start a session, send it a message (read on its next turn), end it',
      body,
      response: z.object({ run: runSummarySchema, session: pairSessionSchema.nullable().describe('The open session after the action') }),
      async handle({ params, body: args }) {
        const pairing = (await deps.runs()).pairing;
        const id = params.id!;
        switch (args.action) {
          case 'start': {
            const { run, session } = await pairing.start(id, {
              ...(args.stage_id === undefined ? {} : { stageId: args.stage_id }),
              by: 'dashboard',
            });
            return { json: { run: runSummary(run), session: pairSessionView(session) } };
          }
          case 'message': {
            if (args.text === undefined) throw new HttpFailure('INVALID_ARGUMENTS', "Invalid body: action 'message' needs text.");
            const sent = await pairing.message(id, args.text, args.session_id);
            return { json: { run: runSummary(sent.run), session: pairSessionView(sent.session) } };
          }
          case 'end': {
            const ended = await pairing.end(id, args.session_id);
            return { json: { run: runSummary(ended.run), session: pairSessionView(ended.run.pairSession ?? null) } };
          }
        }
      },
    }),
  ];
}
