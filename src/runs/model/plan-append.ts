/**
 * Turns a batch of new events into what a store must write, atomically: the numbered
 * events, the projected state (and the spec, when the batch creates the run) and the
 * questions they create, answer or withdraw (a question ends with its stage attempt: a
 * `stage-finished` or a run's end withdraws what is still pending there, by a
 * `question-withdrawn` event in the same batch). Pure apart from
 * the question lookup the store passes in; both store implementations use it, so they
 * cannot disagree about the rules. Every payload is redacted here, the one door into a
 * store, so no secret reaches an event, a goal or a stored state.
 */
import { RESERVED_EVENT_TYPES, RUN_EVENT } from './event-types.js';
import { WeftError } from '../../core/errors.js';
import { redactJson, redactSecrets } from '../../core/redact.js';
import { readQuestionAnswered, readQuestionAsked, readStatusChanged } from './event-payloads.js';
import { normalizeJsonObject, type JsonObject } from './json.js';
import { createdRun, projectState } from './project-run.js';
import { answerQuestion, questionFromAsked, withdrawQuestion, type QuestionRecord } from './question.js';
import { isTerminal } from './run-status.js';
import { EVENT_TYPE, MAX_EVENT_TYPE_LENGTH, STAGE_ID, type NewRunEvent, type RunEvent } from './run-event.js';
import { splitRun, type RunSpec, type RunState } from './run-record.js';

export interface AppendPlan {
  /** Present when the batch starts with `run-created`. */
  spec?: RunSpec;
  state: RunState;
  events: RunEvent[];
  /** Each event's payload as JSON text (what normalising it produced), in event order. */
  payloadTexts: string[];
  /** Questions created, answered or withdrawn by the batch, in their final state. */
  questions: QuestionRecord[];
}

export interface AppendContext {
  runId: string;
  /** Timestamp for events that carry no `at`. */
  now: number;
  lookupQuestion(id: string): QuestionRecord | undefined;
  /** Lets the store's own methods write reserved types such as `run-created`. */
  allowReserved?: boolean;
}

/**
 * @example planAppend(state, [{ type: ENGINE_EVENT.stageStarted, stageId: 'plan@1', payload: {} }], context).state.currentStageId // → 'plan@1'
 */
export function planAppend(current: RunState | undefined, inputs: readonly NewRunEvent[], context: AppendContext): AppendPlan {
  if (!Array.isArray(inputs)) throw new WeftError('RUN_INVALID_PARAMS', 'events must be an array of { type, stageId?, payload, at? }.');
  let run = current;
  let spec: RunSpec | undefined;
  const events: RunEvent[] = [];
  const payloadTexts: string[] = [];
  const touched = new Map<string, QuestionRecord>();
  inputs.forEach((input, index) => {
    const { event, payloadText } = toEvent(input, index, (run?.counts.events ?? 0) + 1, context);
    let text = payloadText;
    if (event.type === RUN_EVENT.runStatusChanged && run !== undefined) {
      const change = readStatusChanged(event.payload);
      event.payload = { ...event.payload, from: change.from ?? run.status };
      text = JSON.stringify(event.payload);
    }
    if (event.type === RUN_EVENT.questionAsked) {
      const { questionId } = readQuestionAsked(event.payload);
      if ((touched.get(questionId) ?? context.lookupQuestion(questionId)) !== undefined) {
        throw new WeftError('RUN_INVALID_PARAMS', `Question id ${questionId} is already used; ask each question with a new ULID.`);
      }
      touched.set(questionId, questionFromAsked(event, readQuestionAsked(event.payload)));
    }
    if (event.type === RUN_EVENT.questionAnswered) {
      const payload = readQuestionAnswered(event.payload);
      const question = touched.get(payload.questionId) ?? context.lookupQuestion(payload.questionId);
      if (question === undefined || question.runId !== context.runId) {
        throw new WeftError('QUESTION_NOT_FOUND', `Run ${context.runId} has no question ${payload.questionId}.`, {
          data: { runId: context.runId, questionId: payload.questionId },
        });
      }
      touched.set(question.id, answerQuestion(question, event, payload));
    }
    if (run === undefined) {
      const created = splitRun(createdRun(event));
      spec = created.spec;
      run = created.state;
    } else {
      run = projectState(run, event);
    }
    events.push(event);
    payloadTexts.push(text);
    for (const { question, withdrawn } of withdrawals(run, event, (id) => touched.get(id) ?? context.lookupQuestion(id))) {
      run = projectState(run, withdrawn);
      touched.set(question.id, withdrawQuestion(question, withdrawn));
      events.push(withdrawn);
      payloadTexts.push(JSON.stringify(withdrawn.payload));
    }
  });
  if (run === undefined) throw new WeftError('RUN_INVALID_PARAMS', `Run ${context.runId} cannot be created without a run-created event.`);
  return { ...(spec === undefined ? {} : { spec }), state: run, events, payloadTexts, questions: [...touched.values()] };
}

/** The `question-withdrawn` events `event` calls for: the pending questions of the stage it finished, or all of them when the run ended. */
function withdrawals(
  run: RunState,
  event: RunEvent,
  lookup: (id: string) => QuestionRecord | undefined,
): { question: QuestionRecord; withdrawn: RunEvent }[] {
  if (run.pendingQuestionIds.length === 0) return [];
  let reason: 'stage-ended' | 'run-ended';
  if (event.type === RUN_EVENT.stageFinished && event.stageId !== undefined) reason = 'stage-ended';
  else if (event.type === RUN_EVENT.runStatusChanged && isTerminal(run.status)) reason = 'run-ended';
  else return [];
  const ended = run.pendingQuestionIds
    .map((id) => lookup(id))
    .filter(
      (question): question is QuestionRecord => question !== undefined && (reason === 'run-ended' || question.stageId === event.stageId),
    );
  return ended.map((question, index) => ({
    question,
    withdrawn: {
      runId: event.runId,
      seq: event.seq + index + 1,
      at: event.at,
      type: RUN_EVENT.questionWithdrawn,
      stageId: question.stageId,
      payload: { questionId: question.id, reason },
    },
  }));
}

function toEvent(input: NewRunEvent, index: number, seq: number, context: AppendContext): { event: RunEvent; payloadText: string } {
  const where = `events[${index}]`;
  if (typeof input !== 'object' || input === null)
    throw new WeftError('RUN_INVALID_PARAMS', `${where} must be an object { type, stageId?, payload, at? }.`);
  const { type, stageId, at } = input;
  if (typeof type !== 'string' || type.length > MAX_EVENT_TYPE_LENGTH || !EVENT_TYPE.test(type)) {
    throw new WeftError(
      'RUN_INVALID_PARAMS',
      `${where}.type '${String(type).slice(0, 80)}' must be a noun-verb kebab-case name such as '${RUN_EVENT.stageStarted}' (at most ${MAX_EVENT_TYPE_LENGTH} characters).`,
    );
  }
  if (RESERVED_EVENT_TYPES.has(type) && !context.allowReserved) {
    throw new WeftError(
      'RUN_INVALID_PARAMS',
      `${where}.type '${type}' is written by the store itself; use createRun, setArchived or setParent.`,
    );
  }
  if (stageId !== undefined && (typeof stageId !== 'string' || !STAGE_ID.test(stageId))) {
    throw new WeftError(
      'RUN_INVALID_PARAMS',
      `${where}.stageId '${String(stageId).slice(0, 80)}' must look like '<node>@<attempt>', e.g. 'implement@1'.`,
    );
  }
  if (at !== undefined && (typeof at !== 'number' || !Number.isSafeInteger(at) || at < 0)) {
    throw new WeftError('RUN_INVALID_PARAMS', `${where}.at must be a timestamp in epoch milliseconds.`);
  }
  const payload = redactedPayload(normalizeJsonObject(input.payload ?? {}, `${where}.payload`));
  return {
    event: {
      runId: context.runId,
      seq,
      at: at ?? context.now,
      type,
      ...(stageId === undefined ? {} : { stageId }),
      payload: payload.value,
    },
    payloadText: payload.text,
  };
}

function redactedPayload(payload: { text: string; value: JsonObject }): { text: string; value: JsonObject } {
  // The text search is the cheap test; the walk runs only when something in it is secret.
  if (redactSecrets(payload.text) === payload.text) return payload;
  const value = redactJson(payload.value);
  return { text: JSON.stringify(value), value };
}
