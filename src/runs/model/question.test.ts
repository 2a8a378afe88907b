/** Unit tests of questions with a schema and alternatives (MCP elicitation): how they are read, converted and checked. */
import { describe, expect, it } from 'vitest';
import { answerFromText } from '../answer-text.js';
import { readQuestionAsked } from './event-payloads.js';
import { answerQuestion, questionFromAsked } from './question.js';
import type { RunEvent } from './run-event.js';

const QUESTION_ID = '01J0000000000000000000000Q';
const asked = (payload: Record<string, unknown>) => readQuestionAsked({ questionId: QUESTION_ID, prompt: 'Pick', ...payload } as never);
const event = { runId: 'run', stageId: 'ask@1', at: 1 } as RunEvent;

describe('questions with a schema and alternatives', () => {
  it('keeps schema and alternatives from question-asked, and refuses malformed ones', () => {
    expect(asked({ kind: 'freeform', schema: { type: 'object' }, alternatives: ['decline'] })).toEqual({
      questionId: QUESTION_ID,
      kind: 'freeform',
      prompt: 'Pick',
      schema: { type: 'object' },
      alternatives: ['decline'],
    });
    expect(() => asked({ kind: 'freeform', schema: 'object' })).toThrow(
      "Invalid question-asked event: 'schema' must be a JSON Schema object, got a string.",
    );
    expect(() => asked({ kind: 'freeform', alternatives: ['ok', 3] })).toThrow(
      "Invalid question-asked event: 'alternatives' must be an array of non-empty strings.",
    );
  });

  it('an alternative is a valid answer to any kind, typed as text too', () => {
    const question = questionFromAsked(event, asked({ kind: 'multi_select', options: ['a', 'b'], alternatives: ['decline'] }));
    expect(answerFromText(question, ' decline ')).toBe('decline');
    expect(answerQuestion(question, event, { questionId: QUESTION_ID, answer: 'decline' }).answer).toBe('decline');
    expect(() => answerQuestion(question, event, { questionId: QUESTION_ID, answer: 'maybe' })).toThrow(
      /must be an array of distinct values from "a", "b" \(or "decline"\)/,
    );
  });

  it('a freeform question with a schema takes JSON (text is parsed) and checks it', () => {
    const question = questionFromAsked(
      event,
      asked({ kind: 'freeform', schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }),
    );
    expect(answerFromText(question, '{"n": 2}')).toEqual({ n: 2 });
    expect(answerQuestion(question, event, { questionId: QUESTION_ID, answer: { n: 2 } }).status).toBe('answered');
    expect(() => answerQuestion(question, event, { questionId: QUESTION_ID, answer: { n: 'two' } })).toThrow(
      /must be valid for the question's schema — \/n: must be integer/,
    );
  });

  it('a freeform question without a schema still takes only text', () => {
    const question = questionFromAsked(event, asked({ kind: 'freeform' }));
    expect(answerFromText(question, '{"n": 2}')).toBe('{"n": 2}');
    expect(() => answerQuestion(question, event, { questionId: QUESTION_ID, answer: { n: 2 } })).toThrow(/must be a string/);
  });
});
