/**
 * Questions: pending human input inside a run, derived from `question-asked` and
 * `question-answered` events. Answers are checked against the question's kind here.
 */
import { WeftError } from '../../core/errors.js';
import { checkAgainstSchema } from '../../core/json-schema.js';
import type { JsonObject, JsonValue } from './json.js';
import type { QuestionAnsweredPayload, QuestionAskedPayload } from './event-types.js';
import type { RunEvent } from './run-event.js';

/** What kind of answer a question takes (a `human` node's `type`, or an agent's question). */
export type QuestionKind = 'yes_no' | 'choice' | 'multi_select' | 'freeform' | 'confirmation';

export const QUESTION_KINDS: readonly QuestionKind[] = ['yes_no', 'choice', 'multi_select', 'freeform', 'confirmation'];

/** Whether a question still waits for its answer; `withdrawn`: its stage attempt (or run) ended first. */
export type QuestionStatus = 'pending' | 'answered' | 'withdrawn';

/** A question a run asked a person (a `human` stage or an agent), with its answer once given. */
export interface QuestionRecord {
  /** ULID, chosen by whoever asks. */
  id: string;
  runId: string;
  stageId: string;
  kind: QuestionKind;
  prompt: string;
  options?: string[];
  /** A JSON Schema the answer must also satisfy; a `freeform` question with one takes any JSON value. */
  schema?: JsonObject;
  /** Strings accepted as answers besides what the kind takes (`decline`, `cancel` for MCP elicitation). */
  alternatives?: string[];
  status: QuestionStatus;
  answer?: JsonValue;
  askedAt: number;
  answeredAt?: number;
  /** When its stage attempt or run ended without an answer. */
  withdrawnAt?: number;
}

/** The record a `question-asked` event creates. */
export function questionFromAsked(event: RunEvent, payload: QuestionAskedPayload): QuestionRecord {
  if (event.stageId === undefined) {
    throw new WeftError('RUN_INVALID_PARAMS', `Invalid question-asked event: a question belongs to a stage; set 'stageId'.`);
  }
  return {
    id: payload.questionId,
    runId: event.runId,
    stageId: event.stageId,
    kind: payload.kind,
    prompt: payload.prompt,
    ...(payload.options === undefined ? {} : { options: payload.options }),
    ...(payload.schema === undefined ? {} : { schema: payload.schema }),
    ...(payload.alternatives === undefined ? {} : { alternatives: payload.alternatives }),
    status: 'pending',
    askedAt: event.at,
  };
}

/**
 * The record after a `question-answered` event. Refuses a second answer
 * (`QUESTION_NOT_PENDING`) and an answer that does not fit the kind (`RUN_INVALID_PARAMS`).
 *
 * @example answerQuestion(choiceQuestion, event, { questionId, answer: 'b' }).status // → 'answered'
 */
export function answerQuestion(question: QuestionRecord, event: RunEvent, payload: QuestionAnsweredPayload): QuestionRecord {
  if (question.status === 'withdrawn') {
    throw new WeftError(
      'QUESTION_NOT_PENDING',
      `Question ${question.id} of run ${question.runId} was withdrawn: its stage ${question.stageId} ended before an answer came. Answer the run's pending questions instead.`,
      {
        data: { questionId: question.id, runId: question.runId, status: question.status },
      },
    );
  }
  if (question.status !== 'pending') {
    throw new WeftError(
      'QUESTION_NOT_PENDING',
      `Question ${question.id} of run ${question.runId} was already answered; an answer cannot be changed.`,
      {
        data: { questionId: question.id, runId: question.runId },
      },
    );
  }
  checkAnswer(question, payload.answer);
  return { ...question, status: 'answered', answer: payload.answer, answeredAt: event.at };
}

/** The record after a `question-withdrawn` event: it will never be answered. */
export function withdrawQuestion(question: QuestionRecord, event: RunEvent): QuestionRecord {
  return { ...question, status: 'withdrawn', withdrawnAt: event.at };
}

function checkAnswer(question: QuestionRecord, answer: JsonValue): void {
  const options = question.options ?? [];
  const alternatives = question.alternatives ?? [];
  if (typeof answer === 'string' && alternatives.includes(answer)) return;
  const fail = (expected: string): never => {
    const or = alternatives.length > 0 ? ` (or ${alternatives.map((item) => JSON.stringify(item)).join(' / ')})` : '';
    throw new WeftError(
      'RUN_INVALID_PARAMS',
      `The answer to question ${question.id} (${question.kind}) must be ${expected}${or}; got ${JSON.stringify(answer).slice(0, 80)}.`,
      {
        data: { questionId: question.id, kind: question.kind },
      },
    );
  };
  checkKind(question, answer, options, fail);
  if (question.schema !== undefined) {
    let problems: string[];
    try {
      problems = checkAgainstSchema(question.schema, answer).problems;
    } catch (error) {
      problems = [`the question's schema cannot be used (${error instanceof Error ? error.message : String(error)})`];
    }
    if (problems.length > 0) fail(`valid for the question's schema — ${problems.join('; ')}`);
  }
}

function checkKind(question: QuestionRecord, answer: JsonValue, options: readonly string[], fail: (expected: string) => never): void {
  switch (question.kind) {
    case 'yes_no':
    case 'confirmation':
      if (typeof answer !== 'boolean') fail('true or false');
      return;
    case 'freeform':
      // With a schema the schema says what fits (an elicitation form takes a JSON object).
      if (typeof answer !== 'string' && question.schema === undefined) fail('a string');
      return;
    case 'choice':
      if (typeof answer !== 'string' || !options.includes(answer))
        fail(`one of ${options.map((option) => JSON.stringify(option)).join(', ')}`);
      return;
    case 'multi_select': {
      const valid =
        Array.isArray(answer) &&
        answer.every((item) => typeof item === 'string' && options.includes(item)) &&
        new Set(answer).size === answer.length;
      if (!valid) fail(`an array of distinct values from ${options.map((option) => JSON.stringify(option)).join(', ')}`);
      return;
    }
    default: {
      const unknown: never = question.kind;
      throw new Error(`unknown question kind ${String(unknown)}`);
    }
  }
}
