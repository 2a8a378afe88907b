/**
 * `{{ … }}` interpolation in prompts, questions, commands, tool arguments and child inputs.
 * A reference is a dotted path: `inputs.x`, `env.X`, `stages.<node>.output[.field]`,
 * `stages.<node>.status|exit_code|answer`, `run.goal`, `run.id`. Missing values render as
 * an empty string; `\{{` writes literal braces.
 */
import { WeftError } from '../../core/errors.js';
import { lookupPath } from './lookup.js';
import type { WorkflowContext } from './types.js';

export const TEMPLATE_ROOTS = ['inputs', 'env', 'stages', 'run'] as const;

export interface TemplateReference {
  /** The whole `{{ … }}` text. */
  source: string;
  path: string[];
  /** Character offset of the reference in the template. */
  offset: number;
}

export interface TemplateScan {
  references: TemplateReference[];
  /** `{{ … }}` whose content is not a dotted path. */
  invalid: { source: string; offset: number }[];
}

const TOKEN = /\\\{\{|\{\{(.*?)\}\}/gs;
const PATH = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)*$/;

function parsePath(content: string): string[] | undefined {
  const text = content.trim();
  return PATH.test(text) ? text.split('.') : undefined;
}

export function scanTemplate(template: string): TemplateScan {
  const scan: TemplateScan = { references: [], invalid: [] };
  for (const match of template.matchAll(TOKEN)) {
    if (match[1] === undefined) continue;
    const path = parsePath(match[1]);
    if (path) scan.references.push({ source: match[0], path, offset: match.index });
    else scan.invalid.push({ source: match[0], offset: match.index });
  }
  return scan;
}

function display(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

function valueOf(content: string, source: string, context: WorkflowContext): unknown {
  const path = parsePath(content);
  if (!path)
    throw new WeftError('WORKFLOW_INVALID', `'${source}' is not a reference; write e.g. {{ inputs.name }} or {{ stages.fetch.output }}.`);
  return lookupPath(path, context);
}

/** Replaces every `{{ ref }}`; values that are not strings are written as JSON. */
export function renderTemplate(template: string, context: WorkflowContext): string {
  return template.replace(TOKEN, (source, content: string | undefined) =>
    content === undefined ? '{{' : display(valueOf(content, source, context)),
  );
}

/**
 * Renders every string inside `value` (objects and arrays recursively). A string that is
 * exactly one reference keeps the referenced value's type (`"{{ inputs.count }}"` → `3`).
 */
export function resolveArgs(value: unknown, context: WorkflowContext): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{(.*?)\}\}$/s.exec(value);
    if (whole && whole[1] !== undefined && !whole[1].includes('{{')) {
      const resolved = valueOf(whole[1], value, context);
      return resolved === undefined || resolved === null ? '' : resolved;
    }
    return renderTemplate(value, context);
  }
  if (Array.isArray(value)) return value.map((item) => resolveArgs(item, context));
  // TOML tables are null-prototype objects; class instances (dates) stay as they are.
  if (value !== null && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveArgs(item, context)]));
  }
  return value;
}

/** Every string inside a value, with the key path to it (for validation). */
export function stringsIn(value: unknown, path: readonly (string | number)[] = []): { path: (string | number)[]; text: string }[] {
  if (typeof value === 'string') return [{ path: [...path], text: value }];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringsIn(item, [...path, index]));
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.entries(value).flatMap(([key, item]) => stringsIn(item, [...path, key]));
  }
  return [];
}
