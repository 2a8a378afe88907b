/**
 * An MCP elicitation form as a run question, and the answer back as an `ElicitResult`:
 *
 * | form                          | question       | answer                         |
 * |-------------------------------|----------------|--------------------------------|
 * | no fields                     | `confirmation` | true → accept `{}`, false → decline |
 * | one boolean field             | `yes_no`       | true / false                   |
 * | one single-select field       | `choice`       | one of the values              |
 * | one multi-select field        | `multi_select` | a list of the values           |
 * | one text or number field      | `freeform`     | the value (text, or a number)  |
 * | anything else                 | `freeform`     | a JSON object of the fields    |
 *
 * Every such question also takes `decline` and `cancel`. The question carries a schema,
 * so an answer that does not fit is refused when it is given (`weft answer` says why)
 * rather than sent to the server. Fields left out take the schema's defaults.
 */
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/client';
import type { JsonObject, JsonValue } from '../../runs/model/json.js';
import type { StageQuestion } from '../../runs/engine/stage-context.js';
import { acceptedContent, answerSchema, describeField, formFields, type FormField } from './elicitation-form.js';
import type { ElicitationContent } from '../../mcp/hub/index.js';
import { clipText } from '../../core/clip-text.js';

export const DECLINE_ANSWER = 'decline';
export const CANCEL_ANSWER = 'cancel';
const ALTERNATIVES = [DECLINE_ANSWER, CANCEL_ANSWER];
const ALTERNATIVES_HINT = `Or answer "${DECLINE_ANSWER}" to refuse, or "${CANCEL_ANSWER}" to dismiss it.`;
/** Longest prompt a question gets: a server's message or form can be any size; a question is read by people. */
const MAX_PROMPT = 8000;

function clipPrompt(question: StageQuestion): StageQuestion {
  return { ...question, prompt: clipText(question.prompt, MAX_PROMPT) };
}

export interface ElicitationQuestion {
  question: StageQuestion;
  /** The result for the server, from an answer that passed the question's checks. */
  toResult(answer: JsonValue): ElicitResult;
}

function singleFieldQuestion(field: FormField, header: string): StageQuestion {
  const about = `${header}\n${describeField(field)}`;
  switch (field.kind) {
    case 'boolean':
      return { kind: 'yes_no', prompt: `${about}\nAnswer yes or no. ${ALTERNATIVES_HINT}` };
    case 'choice':
      return { kind: 'choice', prompt: `${about}\n${ALTERNATIVES_HINT}`, options: field.options.map((option) => option.value) };
    case 'multi':
      return {
        kind: 'multi_select',
        prompt: `${about}\nAnswer with a comma-separated list. ${ALTERNATIVES_HINT}`,
        options: field.options.map((option) => option.value),
        schema: field.schema as JsonObject,
      };
    case 'string':
    case 'number':
    case 'integer':
      return { kind: 'freeform', prompt: `${about}\n${ALTERNATIVES_HINT}`, schema: field.schema as JsonObject };
    default: {
      const unreachable: never = field.kind;
      return unreachable;
    }
  }
}

/**
 * @example
 * const { question, toResult } = elicitationQuestion('github', { message: 'Which repo?', requestedSchema: { type: 'object', properties: { repo: { type: 'string' } } } });
 * // question.kind → 'freeform'; toResult('weft') → { action: 'accept', content: { repo: 'weft' } }
 */
export function elicitationQuestion(server: string, params: ElicitRequestFormParams): ElicitationQuestion {
  const built = buildQuestion(server, params);
  return { ...built, question: clipPrompt(built.question) };
}

function buildQuestion(server: string, params: ElicitRequestFormParams): ElicitationQuestion {
  const schema = params.requestedSchema;
  const fields = formFields(schema);
  const header = `[${server}] ${params.message}`;
  const ending = (answer: JsonValue): ElicitResult | undefined => {
    if (answer === DECLINE_ANSWER) return { action: 'decline' };
    if (answer === CANCEL_ANSWER) return { action: 'cancel' };
    return undefined;
  };
  const accept = (given: ElicitationContent): ElicitResult => ({ action: 'accept', content: acceptedContent(server, schema, given) });

  if (fields.length === 0) {
    return {
      question: { kind: 'confirmation', prompt: `${header}\nAnswer yes to accept or no to decline.`, alternatives: ALTERNATIVES },
      toResult: (answer) => ending(answer) ?? (answer === true ? accept({}) : { action: 'decline' }),
    };
  }
  const [only] = fields;
  if (fields.length === 1 && only) {
    return {
      question: { ...singleFieldQuestion(only, header), alternatives: ALTERNATIVES },
      // An empty text for an optional field means "leave it out".
      toResult: (answer) =>
        ending(answer) ?? accept(answer === '' && !only.required ? {} : { [only.name]: answer as ElicitationContent[string] }),
    };
  }
  const lines = fields.map((field) => `  ${describeField(field)}`);
  return {
    question: {
      kind: 'freeform',
      prompt: `${header}\nAnswer with a JSON object of these fields (left-out fields take their defaults):\n${lines.join('\n')}\n${ALTERNATIVES_HINT}`,
      schema: answerSchema(schema) as JsonObject,
      alternatives: ALTERNATIVES,
    },
    toResult: (answer) => ending(answer) ?? accept(answer as ElicitationContent),
  };
}
