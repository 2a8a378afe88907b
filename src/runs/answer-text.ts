/**
 * Answers typed as text (`weft answer … yes`, a form field) turned into the JSON value a
 * question of that kind takes: yes/no → boolean, multi-select → array, and for a freeform
 * question with a schema (an MCP elicitation form) JSON text → its value. One of the
 * question's `alternatives` (`decline`, `cancel`) stays that string. The store checks the
 * value against the question afterwards.
 */
import type { JsonValue } from './model/json.js';
import type { QuestionRecord } from './model/question.js';

const YES = new Set(['y', 'yes', 'true', 'ok', 'confirm', 'approve', '1']);
const NO = new Set(['n', 'no', 'false', 'deny', 'reject', '0']);

/** `yes`, `y`, `ok`, `approve`… → true; `no`, `n`, `deny`… → false; anything else → undefined. */
export function yesNoFromText(text: string): boolean | undefined {
  const lower = text.trim().toLowerCase();
  return YES.has(lower) ? true : NO.has(lower) ? false : undefined;
}

export function answerFromText(question: Pick<QuestionRecord, 'kind' | 'schema' | 'alternatives'>, text: string): JsonValue {
  const trimmed = text.trim();
  if (question.alternatives?.includes(trimmed)) return trimmed;
  switch (question.kind) {
    case 'yes_no':
    case 'confirmation':
      return yesNoFromText(trimmed) ?? trimmed;
    case 'multi_select':
      if (trimmed.startsWith('[')) return parseJsonText(trimmed);
      return trimmed === '' ? [] : trimmed.split(',').map((part) => part.trim());
    case 'choice':
      return text;
    case 'freeform':
      return question.schema === undefined || question.schema.type === 'string' ? text : parseJsonText(trimmed);
    default: {
      const unknown: never = question.kind;
      return unknown;
    }
  }
}

/** JSON text as its value (`42`, `{"name":"Ada"}`); anything else stays text, for the schema check to refuse with a clear message. */
function parseJsonText(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}
