/**
 * Elicitation at a terminal (`weft tools call`): one prompt per field of the form, in the
 * server's order. Enter keeps a field's default (or leaves an optional field out);
 * `decline` or `cancel` at any prompt ends the form so; choices take the value, its title
 * or its number. A field that does not fit is asked again, a few times. Without a
 * terminal the request is declined, with a line on stderr that says why.
 */
import { checkAgainstSchema } from '../../core/json-schema.js';
import { yesNoFromText } from '../../runs/answer-text.js';
import type { ElicitationContent, ElicitationHandler } from '../../mcp/hub/index.js';
import { acceptedContent, formFields, type FormField, type FormOption } from './elicitation-form.js';
import { CANCEL_ANSWER, DECLINE_ANSWER } from './elicitation-question.js';
import type { TerminalPrompter } from './terminal-prompter.js';

/** Tries per field before the form is cancelled (a script piping answers must not loop forever). */
const MAX_TRIES = 3;

type FieldValue = ElicitationContent[string];
type Parsed = { value: FieldValue } | { problem: string };

function optionLabel(option: FormOption, index: number): string {
  return `${index + 1}) ${option.title ? `${option.title} [${option.value}]` : option.value}`;
}

function promptFor(field: FormField): string {
  const parts = [field.label];
  if (field.description && field.description !== field.label) parts.push(`— ${field.description}`);
  if (field.kind === 'boolean') parts.push('[y/n]');
  if (field.kind === 'multi') parts.push('(comma-separated)');
  if (field.default !== undefined)
    parts.push(`(default ${Array.isArray(field.default) ? field.default.join(', ') : String(field.default)})`);
  else if (!field.required) parts.push('(optional)');
  return `${parts.join(' ')}: `;
}

function pickOption(field: FormField, text: string): string | undefined {
  const index = /^\d+$/.test(text) ? Number(text) - 1 : -1;
  if (index >= 0 && index < field.options.length) return field.options[index]!.value;
  const lower = text.toLowerCase();
  return field.options.find((option) => option.value === text || option.title?.toLowerCase() === lower)?.value;
}

function parseField(field: FormField, text: string): Parsed {
  switch (field.kind) {
    case 'boolean': {
      const value = yesNoFromText(text);
      return value === undefined ? { problem: 'answer y or n' } : { value };
    }
    case 'number':
    case 'integer': {
      const value = Number(text);
      return Number.isFinite(value) ? { value } : { problem: `'${text}' is not a number` };
    }
    case 'choice': {
      const value = pickOption(field, text);
      return value === undefined ? { problem: `pick one of ${field.options.map((option) => option.value).join(', ')}` } : { value };
    }
    case 'multi': {
      const picked = text
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== '');
      const values = picked.map((part) => pickOption(field, part));
      const unknown = picked.filter((_, index) => values[index] === undefined);
      if (unknown.length > 0) return { problem: `not an option: ${unknown.join(', ')}` };
      return { value: [...new Set(values as string[])] };
    }
    case 'string':
      return { value: text };
    default: {
      const unreachable: never = field.kind;
      return unreachable;
    }
  }
}

type FieldOutcome = { value: FieldValue | undefined } | { end: 'decline' | 'cancel' };

async function askField(terminal: TerminalPrompter, field: FormField, signal: AbortSignal): Promise<FieldOutcome> {
  if (field.kind === 'choice' || field.kind === 'multi') terminal.say(`  ${field.options.map(optionLabel).join('  ')}`);
  for (let attempt = 1; attempt <= MAX_TRIES; attempt += 1) {
    let text: string;
    try {
      text = (await terminal.ask(promptFor(field), signal)).trim();
    } catch (error) {
      if (signal.aborted) throw error;
      // Ctrl+D or Ctrl+C at the prompt: the person dismissed the form.
      terminal.say('  (input ended; the form is cancelled)');
      return { end: 'cancel' };
    }
    if (text === DECLINE_ANSWER) return { end: 'decline' };
    if (text === CANCEL_ANSWER) return { end: 'cancel' };
    if (text === '') {
      if (field.default !== undefined || !field.required) return { value: undefined };
      terminal.say(`  ${field.label} is required.`);
      continue;
    }
    const parsed = parseField(field, text);
    const problems =
      'problem' in parsed
        ? [parsed.problem]
        : checkAgainstSchema(field.schema, parsed.value).problems.map((problem) => problem.replace(/^\(root\): /, ''));
    if ('value' in parsed && problems.length === 0) return { value: parsed.value };
    terminal.say(`  ${problems.join('; ')}`);
  }
  terminal.say(`  No valid answer for ${field.label} after ${MAX_TRIES} tries; the form is cancelled.`);
  return { end: 'cancel' };
}

/**
 * @example
 * new McpHub({ …, handlers: { elicitation: terminalElicitationHandler(terminal) } });
 */
export function terminalElicitationHandler(terminal: TerminalPrompter): ElicitationHandler {
  return async ({ server, params, signal }) => {
    if (!terminal.interactive) {
      terminal.say(
        `weft: MCP server '${server}' asked for input (${JSON.stringify(params.message)}), but stdin is not a terminal, so weft declined. Run the command in a terminal to answer it.`,
      );
      return { action: 'decline' };
    }
    if (params.mode === 'url') {
      terminal.say(
        `weft: MCP server '${server}' asked you to open a URL (${params.url}); weft supports only form requests, so it declined.`,
      );
      return { action: 'decline' };
    }
    terminal.say(`[${server}] ${params.message}`);
    terminal.say(
      `(Enter keeps the default or skips an optional field; type "${DECLINE_ANSWER}" or "${CANCEL_ANSWER}" at any prompt to stop.)`,
    );
    const content: ElicitationContent = {};
    for (const field of formFields(params.requestedSchema)) {
      const outcome = await askField(terminal, field, signal);
      if ('end' in outcome) return { action: outcome.end };
      if (outcome.value !== undefined) content[field.name] = outcome.value;
    }
    return { action: 'accept', content: acceptedContent(server, params.requestedSchema, content) };
  };
}
