/** Unit tests of `elicitationQuestion`: which question a form becomes, and which result each answer gives. */
import { describe, expect, it } from 'vitest';
import type { ElicitRequestFormParams } from '@modelcontextprotocol/client';
import { answerQuestion, questionFromAsked, type QuestionRecord } from '../../runs/model/question.js';
import type { RunEvent } from '../../runs/model/run-event.js';
import { answerFromText } from '../../runs/answer-text.js';
import { elicitationQuestion } from './elicitation-question.js';

type Schema = ElicitRequestFormParams['requestedSchema'];

function form(properties: Schema['properties'], required?: string[]): ElicitRequestFormParams {
  return { message: 'Tell me', requestedSchema: { type: 'object', properties, ...(required ? { required } : {}) } };
}

/** The question as the run store would record it, so answers go through the store's own checks. */
function recorded(params: ElicitRequestFormParams): {
  record: QuestionRecord;
  toResult: ReturnType<typeof elicitationQuestion>['toResult'];
} {
  const { question, toResult } = elicitationQuestion('srv', params);
  const event = { runId: 'run', stageId: 'call@1', at: 1 } as RunEvent;
  return { record: questionFromAsked(event, { questionId: '01J0000000000000000000000Q', ...question }), toResult };
}

/** Answers as `weft answer` would: text converted for the kind, then checked by the store. */
function answer(record: QuestionRecord, text: string) {
  const value = answerFromText(record, text);
  return answerQuestion(record, { runId: 'run', stageId: 'call@1', at: 2 } as RunEvent, { questionId: record.id, answer: value }).answer!;
}

describe('elicitationQuestion', () => {
  it('a form without fields is a confirmation: yes accepts {}, no declines', () => {
    const { record, toResult } = recorded(form({}));
    expect(record).toMatchObject({
      kind: 'confirmation',
      prompt: '[srv] Tell me\nAnswer yes to accept or no to decline.',
      alternatives: ['decline', 'cancel'],
    });
    expect(toResult(answer(record, 'yes'))).toEqual({ action: 'accept', content: {} });
    expect(toResult(answer(record, 'no'))).toEqual({ action: 'decline' });
  });

  it('one boolean field is a yes/no question', () => {
    const { record, toResult } = recorded(form({ agree: { type: 'boolean', description: 'Agree to the terms' } }, ['agree']));
    expect(record.kind).toBe('yes_no');
    expect(record.prompt).toBe(
      '[srv] Tell me\nagree (boolean; required): Agree to the terms\nAnswer yes or no. Or answer "decline" to refuse, or "cancel" to dismiss it.',
    );
    expect(toResult(answer(record, 'y'))).toEqual({ action: 'accept', content: { agree: true } });
    expect(toResult(answer(record, 'cancel'))).toEqual({ action: 'cancel' });
  });

  it('one enum field is a choice of its values (titled oneOf too)', () => {
    const { record, toResult } = recorded(
      form({
        hero: {
          type: 'string',
          oneOf: [
            { const: 'h1', title: 'Superman' },
            { const: 'h2', title: 'Wonder Woman' },
          ],
        },
      }),
    );
    expect(record).toMatchObject({ kind: 'choice', options: ['h1', 'h2'] });
    expect(record.prompt).toContain('hero (one of "h1" (Superman), "h2" (Wonder Woman))');
    expect(toResult(answer(record, 'h2'))).toEqual({ action: 'accept', content: { hero: 'h2' } });
    expect(() => answer(record, 'h3')).toThrow(/must be one of "h1", "h2" \(or "decline" \/ "cancel"\)/);
  });

  it('one multi-select field is a multi-select whose schema bounds the count', () => {
    const { record, toResult } = recorded(form({ tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, maxItems: 2 } }));
    expect(record).toMatchObject({ kind: 'multi_select', options: ['a', 'b', 'c'] });
    expect(toResult(answer(record, 'a,c'))).toEqual({ action: 'accept', content: { tags: ['a', 'c'] } });
    expect(() => answer(record, 'a,b,c')).toThrow(/must NOT have more than 2 items/);
    expect(toResult(answer(record, 'decline'))).toEqual({ action: 'decline' });
  });

  it('one number field is freeform text read as a number and checked against its bounds', () => {
    const { record, toResult } = recorded(form({ count: { type: 'integer', minimum: 1, maximum: 5 } }, ['count']));
    expect(record.kind).toBe('freeform');
    expect(toResult(answer(record, '3'))).toEqual({ action: 'accept', content: { count: 3 } });
    expect(() => answer(record, '9')).toThrow(/must be <= 5/);
    expect(() => answer(record, 'three')).toThrow(/must be integer/);
  });

  it('one optional text field: an empty answer leaves it out', () => {
    const { record, toResult } = recorded(form({ note: { type: 'string' } }));
    expect(toResult(answer(record, ''))).toEqual({ action: 'accept', content: {} });
    expect(toResult(answer(record, 'hello'))).toEqual({ action: 'accept', content: { note: 'hello' } });
  });

  it('a form of several fields takes a JSON object; defaults fill what is left out; typos and missing fields are refused', () => {
    const params = form(
      {
        name: { type: 'string', description: 'Your name' },
        email: { type: 'string', format: 'email' },
        size: { type: 'string', enum: ['s', 'm'], default: 'm' },
        count: { type: 'number', default: 2 },
      },
      ['name', 'size'],
    );
    const { record, toResult } = recorded(params);
    expect(record.kind).toBe('freeform');
    expect(record.prompt).toBe(
      [
        '[srv] Tell me',
        'Answer with a JSON object of these fields (left-out fields take their defaults):',
        '  name (string; required): Your name',
        '  email (string, email)',
        '  size (one of "s", "m"; required; default "m")',
        '  count (number; default 2)',
        'Or answer "decline" to refuse, or "cancel" to dismiss it.',
      ].join('\n'),
    );
    expect(toResult(answer(record, '{"name": "Ada"}'))).toEqual({ action: 'accept', content: { name: 'Ada', size: 'm', count: 2 } });
    expect(() => answer(record, '{"size": "s"}')).toThrow(/name: is required/);
    expect(() => answer(record, '{"name": "Ada", "nmae": "x"}')).toThrow(/unknown property 'nmae'/);
    expect(() => answer(record, '{"name": "Ada", "email": "nope"}')).toThrow(/\/email: must match format "email"/);
    expect(() => answer(record, 'Ada')).toThrow(/must be valid for the question's schema — \(root\): must be object/);
    expect(toResult(answer(record, ' cancel '))).toEqual({ action: 'cancel' });
  });
});
