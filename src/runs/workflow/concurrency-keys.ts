/**
 * `[run.concurrency]`: the keys a workflow's runs share with every other run carrying the
 * same key, on any worker and host. Checked when the workflow is read (a key is a template
 * over the run's inputs and goal), rendered once when a run is created; the rendered keys
 * live in the run's spec and the stores enforce them at claim time.
 */
import { isTable } from '../../core/config-text/describe-value.js';
import { WeftError } from '../../core/errors.js';
import {
  mergeConcurrencySlots,
  MAX_CONCURRENCY_KEY_LENGTH,
  MAX_CONCURRENCY_KEYS,
  MAX_CONCURRENCY_LIMIT,
  type ConcurrencySlot,
} from '../model/run-concurrency.js';
import { defined, FieldReader, report, type ParseContext } from './field-reader.js';
import { renderTemplate, scanTemplate } from './template.js';
import type { JsonObject } from '../model/json.js';
import type { ConcurrencySpec } from './types.js';

const FIELDS = ['key', 'limit'] as const;
const EXAMPLE = 'write [run.concurrency] with key = "{{ inputs.repo }}" and limit = 1 (or [[run.concurrency]] tables for several keys)';

export type { ConcurrencySpec } from './types.js';

/** Reads `[run.concurrency]` (one table) or `[[run.concurrency]]` (several); `inputs` are the declared input names. */
export function parseConcurrency(
  context: ParseContext,
  run: Record<string, unknown>,
  inputs: ReadonlySet<string>,
): ConcurrencySpec[] | undefined {
  const value = run.concurrency;
  if (value === undefined) return undefined;
  const tables = Array.isArray(value) ? value : [value];
  if (tables.length === 0 || tables.length > MAX_CONCURRENCY_KEYS) {
    report(
      context,
      ['run', 'concurrency'],
      `[run.concurrency]: give from 1 to ${MAX_CONCURRENCY_KEYS} keys, got ${tables.length} — ${EXAMPLE}`,
    );
    return undefined;
  }
  const specs: ConcurrencySpec[] = [];
  tables.forEach((table: unknown, index) => {
    const path = Array.isArray(value) ? ['run', 'concurrency', index] : ['run', 'concurrency'];
    if (!isTable(table)) {
      report(context, path, `[run.concurrency]: each key must be a table — ${EXAMPLE}`);
      return;
    }
    const reader = new FieldReader(context, table, path, '[run.concurrency]');
    reader.rejectUnknown(FIELDS, '[run.concurrency] tables');
    if (!reader.require('key', '"{{ inputs.repo }}"')) return;
    const key = reader.string('key', { nonEmpty: true });
    const limit = reader.integer('limit', 1) ?? (reader.has('limit') ? undefined : 1);
    if (limit !== undefined && limit > MAX_CONCURRENCY_LIMIT)
      reader.problem('limit', `'limit' is at most ${MAX_CONCURRENCY_LIMIT}, got ${limit}`);
    if (key !== undefined && !keyIsKnownAtCreation(reader, key, inputs)) return;
    if (key === undefined || limit === undefined || limit > MAX_CONCURRENCY_LIMIT) return;
    specs.push(defined({ key, limit }));
  });
  return specs.length === tables.length ? specs : undefined;
}

/** The parts of a key template that are no reference, and the references a run does not have when it is created. */
function templateFaults(template: string, inputs: ReadonlySet<string>): { invalid: string[]; unknown: string[] } {
  const scan = scanTemplate(template);
  return {
    invalid: scan.invalid.map((bad) => bad.source),
    unknown: scan.references
      .filter(
        ({ path: [root, name, ...rest] }) =>
          !((root === 'inputs' && name !== undefined && inputs.has(name)) || (root === 'run' && name === 'goal' && rest.length === 0)),
      )
      .map((reference) => reference.source),
  };
}

/** Reports references a run does not have when it is created; true when there are none. */
function keyIsKnownAtCreation(reader: FieldReader, key: string, inputs: ReadonlySet<string>): boolean {
  const { invalid, unknown } = templateFaults(key, inputs);
  for (const bad of invalid) reader.problem('key', `'${bad}' is not a reference — write e.g. "repo:{{ inputs.repo }}"`);
  for (const source of unknown)
    reader.problem(
      'key',
      `'${source}' cannot be known when a run is created — a key may use {{ inputs.<declared input> }} and {{ run.goal }}`,
    );
  return invalid.length === 0 && unknown.length === 0;
}

/**
 * What is wrong with a key template that comes from elsewhere than the workflow (a settings
 * file's default): the same references a workflow's own key may use, against its declared inputs.
 */
export function keyTemplateProblems(template: string, inputs: ReadonlySet<string>): string[] {
  const { invalid, unknown } = templateFaults(template, inputs);
  return [
    ...invalid.map((bad) => `'${bad}' is not a reference — write e.g. "repo:{{ inputs.repo }}"`),
    ...unknown.map((source) => `'${source}' is not an input this workflow declares, nor {{ run.goal }}`),
  ];
}

/**
 * The run's keys: each template rendered over its inputs and goal, one slot per distinct
 * key. A key that renders empty or too long is refused by name.
 */
export function resolveConcurrency(
  specs: readonly ConcurrencySpec[] | undefined,
  inputs: JsonObject,
  goal: string,
): ConcurrencySlot[] | undefined {
  if (specs === undefined || specs.length === 0) return undefined;
  const slots = specs.map(({ key: template, limit }) => {
    const key = renderTemplate(template, { inputs, stages: {}, run: { id: '', goal } });
    if (key.trim() === '') {
      throw new WeftError(
        'RUN_INVALID_PARAMS',
        `[run.concurrency] key "${template}" renders empty for this run — give the input it uses a value, or add a fixed part such as "repo:{{ … }}".`,
      );
    }
    if (key.length > MAX_CONCURRENCY_KEY_LENGTH) {
      throw new WeftError(
        'RUN_INVALID_PARAMS',
        `[run.concurrency] key "${template}" renders ${key.length} characters for this run; at most ${MAX_CONCURRENCY_KEY_LENGTH}. Use a shorter input in the key.`,
      );
    }
    return { key, limit };
  });
  return mergeConcurrencySlots(slots);
}
