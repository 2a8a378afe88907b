/**
 * `weft_run_pair`: a conversation with a running agent stage — `status` (running agent
 * stages, open session), `start` (stage_id, optional when one agent stage runs),
 * `message` (text; the agent reads it on its next turn), `end`, and `transcript`
 * (readable entries from since_seq, with next_seq to read on from). Each action is one
 * call on the run service's pairing; errors keep their stable codes.
 */
import * as z from 'zod';
import { PAIR_END_REASONS } from '../../../runs/model/event-types.js';
import { STAGE_ID } from '../../../runs/model/run-event.js';
import { MAX_PAIR_MESSAGE_LENGTH, TRANSCRIPT_LIMITS, type PairService } from '../../../app/services/pair-service.js';
import { failure } from '../error-codes.js';
import { isoTime, pairSessionSchema, pairSessionView, runSummary, runSummarySchema } from '../../../app/views/run-view.js';
import { defineTool, needArg, ToolFailure } from '../tool-kit.js';
import { runIdArg } from '../../../app/views/run-args.js';

export const PAIR_ACTIONS = ['status', 'start', 'message', 'end', 'transcript'] as const;

const input = z
  .object({
    run_id: runIdArg('The run whose agent stage to pair with'),
    action: z
      .enum(PAIR_ACTIONS)
      .describe(
        "status: the running agent stages and the open session; start: open a session with an agent stage; message: send text the agent reads on its next turn (to the session's stage, or the whole run when none is open); end: close the session; transcript: what was said and done, from since_seq",
      ),
    stage_id: z
      .string()
      .regex(STAGE_ID)
      .optional()
      .describe(
        "start: the agent stage, e.g. implement@1 (may be omitted when exactly one agent stage runs); transcript: only this stage's entries (plus the run's own)",
      ),
    text: z.string().min(1).max(MAX_PAIR_MESSAGE_LENGTH).optional().describe('message: the text to send (required for message)'),
    session_id: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe(
        'message, end: the session id start returned (a ULID); a message to a session that is not the open one is refused, ending an ended one reports already_ended',
      ),
    since_seq: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('transcript: the first seq to show (default 1); pass the previous next_seq to read only what is new'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(TRANSCRIPT_LIMITS.max)
      .optional()
      .describe(`transcript: read at most this many events (default ${TRANSCRIPT_LIMITS.default})`),
  })
  .strict();

const stageSchema = z.object({
  stage_id: z.string(),
  node: z.string(),
  kind: z.enum(['agent', 'prompt']).describe('Only agent stages can be paired with (a prompt stage makes one model call)'),
  turns: z.number().int().describe('Model turns finished so far'),
  started_at: z.string(),
});

const entrySchema = z.object({
  seq: z.number().int(),
  at: z.string(),
  type: z.string().describe('The event type, e.g. model-turn-finished'),
  stage_id: z.string().nullable(),
  session_id: z.string().nullable().describe('The pair session a message or pair event belongs to'),
  text: z.string().describe('Readable text; tool arguments and results abbreviated'),
});

const output = z.object({
  action: z.enum(PAIR_ACTIONS),
  run: runSummarySchema.describe('The run after the action'),
  session: pairSessionSchema.nullable().describe('The open pair session after the action (null when none is open)'),
  stages: z.array(stageSchema).nullable().describe('status: the running agent and prompt stages; null for other actions'),
  delivered: z.boolean().describe('message: true when the message was recorded for the agent'),
  message_seq: z.number().int().nullable().describe('message: seq of the message-sent event'),
  ended: z
    .object({ session_id: z.string(), stage_id: z.string(), reason: z.enum(PAIR_END_REASONS), already_ended: z.boolean() })
    .nullable()
    .describe('end: the session that ended and why'),
  entries: z.array(entrySchema).nullable().describe('transcript: the entries; null for other actions'),
  next_seq: z.number().int().nullable().describe('transcript: pass as since_seq to read on'),
});

type Args = z.output<typeof input>;
type Output = z.input<typeof output>;

const EMPTY = { stages: null, delivered: false, message_seq: null, ended: null, entries: null, next_seq: null };

async function act(pairing: PairService, args: Args): Promise<{ summary: string; data: Output }> {
  const id = args.run_id;
  const { action } = args;
  switch (action) {
    case 'status': {
      const { run, stages, session } = await pairing.status(id);
      const running =
        stages.length === 0
          ? 'no agent stage is running'
          : stages.map((stage) => `${stage.kind} stage ${stage.stageId} running (${stage.turns} turns)`).join(', ');
      return {
        summary: `Run ${id} (${run.status}): ${running}; ${session ? `pair session ${session.sessionId} is open on ${session.stageId}` : 'no pair session is open'}.`,
        data: {
          action,
          run: runSummary(run),
          ...EMPTY,
          session: pairSessionView(session),
          stages: stages.map((stage) => ({
            stage_id: stage.stageId,
            node: stage.node,
            kind: stage.kind,
            turns: stage.turns,
            started_at: isoTime(stage.startedAt),
          })),
        },
      };
    }
    case 'start': {
      const { run, session } = await pairing.start(id, {
        ...(args.stage_id === undefined ? {} : { stageId: args.stage_id }),
        by: 'mcp client',
      });
      return {
        summary: `Pair session ${session.sessionId} started on ${session.stageId} of run ${id}; messages (action "message") now go to that stage.`,
        data: { action, run: runSummary(run), ...EMPTY, session: pairSessionView(session) },
      };
    }
    case 'message': {
      const sent = await pairing.message(id, needArg(args.text, 'message', 'text'), args.session_id);
      const where = sent.session
        ? `${sent.session.stageId} (pair session ${sent.session.sessionId})`
        : `run ${id} (no pair session is open: every agent stage reads it)`;
      return {
        summary: `Sent message #${sent.seq} to ${where}; the agent reads it on its next turn.`,
        data: {
          action,
          run: runSummary(sent.run),
          ...EMPTY,
          session: pairSessionView(sent.session),
          delivered: true,
          message_seq: sent.seq,
        },
      };
    }
    case 'end': {
      const ended = await pairing.end(id, args.session_id);
      const why = ended.reason === 'ended' ? '' : ' (its stage finished)';
      return {
        summary: ended.alreadyEnded
          ? `Pair session ${ended.session.sessionId} had already ended${why}.`
          : `Ended pair session ${ended.session.sessionId} on ${ended.session.stageId} of run ${id}.`,
        data: {
          action,
          run: runSummary(ended.run),
          ...EMPTY,
          session: pairSessionView(ended.run.pairSession ?? null),
          ended: {
            session_id: ended.session.sessionId,
            stage_id: ended.session.stageId,
            reason: ended.reason,
            already_ended: ended.alreadyEnded,
          },
        },
      };
    }
    case 'transcript': {
      const read = await pairing.transcript(id, {
        ...(args.since_seq === undefined ? {} : { sinceSeq: args.since_seq }),
        ...(args.limit === undefined ? {} : { limit: args.limit }),
        ...(args.stage_id === undefined ? {} : { stageId: args.stage_id }),
      });
      const entries = read.entries.map((entry) => ({
        seq: entry.seq,
        at: isoTime(entry.at),
        type: entry.type,
        stage_id: entry.stageId,
        session_id: entry.sessionId,
        text: entry.text,
      }));
      return {
        summary: `${entries.length} transcript entr${entries.length === 1 ? 'y' : 'ies'} of run ${id} (${read.run.status}); read on with since_seq ${read.nextSeq}.`,
        data: { action, run: runSummary(read.run), ...EMPTY, session: pairSessionView(read.session), entries, next_seq: read.nextSeq },
      };
    }
    default: {
      const unknown: never = action;
      throw new ToolFailure(failure('INVALID_ARGUMENTS', `unknown action '${String(unknown)}'.`));
    }
  }
}

export const runPairTool = defineTool({
  name: 'weft_run_pair',
  title: 'Pair with a weft agent stage',
  description:
    'Talk to a running agent stage of a run: status (running agent stages, open session), start (stage_id; optional when one agent stage runs), message (text; the agent reads it on its next turn), end, transcript (since_seq, limit, stage_id; returns next_seq). One session per run; it ends by itself when its stage finishes.',
  input,
  output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, { deps }) {
    const runs = await deps.runs();
    // The pairing service speaks whole ids; a prefix or @last is resolved here once.
    return act(runs.pairing, { ...args, run_id: (await runs.get(args.run_id)).id });
  },
});
