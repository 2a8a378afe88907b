/**
 * What an MCP elicitation form asks for, read once from its `requestedSchema`: its fields
 * in order, each with a type, title, options, default and whether it is required. Both
 * ways of answering build on it — a run question (`elicitation-question.ts`) and terminal
 * prompts (`terminal-elicitation.ts`) — and both finish with `acceptedContent`, which
 * fills defaults and checks the content against the schema the server sent.
 */
import { WeftError } from '../../core/errors.js';
import { checkAgainstSchema, type JsonSchema } from '../../core/json-schema.js';
import { applyElicitationDefaults, type ElicitationContent, type ElicitationSchema } from '../../mcp/hub/index.js';

export type FieldKind = 'boolean' | 'string' | 'number' | 'integer' | 'choice' | 'multi';

export interface FormOption {
  value: string;
  /** A display title, when the schema gives one (`oneOf`/`anyOf` titles, legacy `enumNames`). */
  title?: string;
}

export interface FormField {
  name: string;
  kind: FieldKind;
  /** `title` and `description`, whichever the schema has. */
  label: string;
  description?: string;
  required: boolean;
  options: FormOption[];
  default?: string | number | boolean | string[];
  /** The field's own JSON Schema, for checking one answer. */
  schema: JsonSchema;
}

type Loose = Record<string, unknown>;

function asLoose(value: unknown): Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Loose) : {};
}

function optionsOf(list: unknown, titles?: unknown): FormOption[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((item, index): FormOption[] => {
    if (typeof item === 'string') {
      const title = Array.isArray(titles) && typeof titles[index] === 'string' ? (titles[index] as string) : undefined;
      return [{ value: item, ...(title === undefined ? {} : { title }) }];
    }
    const entry = asLoose(item);
    return typeof entry.const === 'string'
      ? [{ value: entry.const, ...(typeof entry.title === 'string' ? { title: entry.title } : {}) }]
      : [];
  });
}

function defaultOf(value: unknown): FormField['default'] {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return Array.isArray(value) && value.every((item): item is string => typeof item === 'string') ? value : undefined;
}

function fieldOf(name: string, property: unknown, required: boolean): FormField {
  const schema = asLoose(property);
  const type = schema.type;
  const items = asLoose(schema.items);
  let kind: FieldKind;
  let options: FormOption[] = [];
  if (type === 'array') {
    kind = 'multi';
    options = optionsOf(items.enum ?? items.anyOf);
  } else if (type === 'string' && (Array.isArray(schema.enum) || Array.isArray(schema.oneOf))) {
    kind = 'choice';
    options = optionsOf(schema.enum ?? schema.oneOf, schema.enumNames);
  } else if (type === 'boolean' || type === 'number' || type === 'integer') {
    kind = type;
  } else {
    kind = 'string';
  }
  const title = typeof schema.title === 'string' ? schema.title : undefined;
  const description = typeof schema.description === 'string' ? schema.description : undefined;
  const value = defaultOf(schema.default);
  return {
    name,
    kind,
    label: title ?? name,
    ...(description === undefined ? {} : { description }),
    required,
    options,
    ...(value === undefined ? {} : { default: value }),
    schema,
  };
}

/** The fields of a form, in the order the server listed them. */
export function formFields(schema: ElicitationSchema): FormField[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, property]) => fieldOf(name, property, required.has(name)));
}

/**
 * The schema an answer to the whole form must satisfy: the server's, minus `required` for
 * fields with a default (omitting them takes the default) and with no unknown fields (a
 * typo must not vanish silently).
 */
export function answerSchema(schema: ElicitationSchema): JsonSchema {
  const fields = formFields(schema);
  const required = fields.filter((field) => field.required && field.default === undefined).map((field) => field.name);
  return { ...(schema as JsonSchema), required, additionalProperties: false };
}

/** A short description of one field: `name (string, required): Your full name`. */
export function describeField(field: FormField): string {
  const facts: string[] = [];
  switch (field.kind) {
    case 'choice':
      facts.push(`one of ${field.options.map((option) => `"${option.value}"${option.title ? ` (${option.title})` : ''}`).join(', ')}`);
      break;
    case 'multi':
      facts.push(`a list from ${field.options.map((option) => `"${option.value}"${option.title ? ` (${option.title})` : ''}`).join(', ')}`);
      break;
    default:
      facts.push(typeof field.schema.format === 'string' ? `${field.kind}, ${field.schema.format}` : field.kind);
  }
  if (field.required) facts.push('required');
  if (field.default !== undefined) facts.push(`default ${JSON.stringify(field.default)}`);
  const text = field.description ?? (field.label !== field.name ? field.label : undefined);
  return `${field.name} (${facts.join('; ')})${text ? `: ${text}` : ''}`;
}

/**
 * The content an `accept` carries: `given` plus the schema's defaults for fields left
 * out, checked against the server's schema. Throws `RUN_INVALID_PARAMS` naming the
 * problems when it does not fit.
 *
 * @example acceptedContent(schema, { name: 'Ada' }) // → { name: 'Ada', firstLine: 'It was a dark and stormy night.' }
 */
export function acceptedContent(server: string, schema: ElicitationSchema, given: ElicitationContent): ElicitationContent {
  const content = applyElicitationDefaults(schema, given);
  const check = checkAgainstSchema(schema as JsonSchema, content);
  if (!check.ok) {
    throw new WeftError(
      'RUN_INVALID_PARAMS',
      `The answer to MCP server '${server}' does not fit the form it asked for: ${check.problems.join('; ')}.`,
      { data: { server } },
    );
  }
  return content;
}
