/**
 * Answers typed as text (`weft answer … yes`, a form field) turned into the JSON value a
 * question of that kind takes: yes/no → boolean, multi-select → array. The store checks
 * the value against the question afterwards.
 */
import type { JsonValue } from './model/json.js';
import type { QuestionRecord } from './model/question.js';

const YES = new Set(['y', 'yes', 'true', 'ok', 'confirm', 'approve', '1']);
const NO = new Set(['n', 'no', 'false', 'deny', 'reject', '0']);

export function answerFromText(question: Pick<QuestionRecord, 'kind'>, text: string): JsonValue {
  const trimmed = text.trim();
  switch (question.kind) {
    case 'yes_no':
    case 'confirmation': {
      const lower = trimmed.toLowerCase();
      if (YES.has(lower)) return true;
      if (NO.has(lower)) return false;
      return trimmed;
    }
    case 'multi_select':
      if (trimmed.startsWith('[')) {
        try {
          return JSON.parse(trimmed) as JsonValue;
        } catch {
          return trimmed;
        }
      }
      return trimmed === '' ? [] : trimmed.split(',').map((part) => part.trim());
    case 'choice':
    case 'freeform':
      return text;
    default: {
      const unknown: never = question.kind;
      return unknown;
    }
  }
}
