/**
 * A node's `retry`: either a number of attempts (`retry = 3`) or a table
 * `{ attempts, backoff = "1s", factor = 2.0, max_backoff }`.
 */
import { describeValue, isTable } from '../../core/config-text/describe-value.js';
import { FieldReader } from './field-reader.js';
import type { RetryPolicy } from './types.js';

const RETRY_FIELDS = ['attempts', 'backoff', 'factor', 'max_backoff'] as const;
export const DEFAULT_BACKOFF_MS = 1000;
export const DEFAULT_BACKOFF_FACTOR = 2;
const MAX_ATTEMPTS = 100;

const validAttempts = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_ATTEMPTS;

export function parseRetry(node: FieldReader): RetryPolicy | undefined {
  const value = node.table.retry;
  if (value === undefined) return undefined;
  if (validAttempts(value)) return { attempts: value, backoffMs: DEFAULT_BACKOFF_MS, factor: DEFAULT_BACKOFF_FACTOR };
  if (!isTable(value)) {
    node.problem(
      'retry',
      `'retry' must be a number of attempts from 1 to ${MAX_ATTEMPTS} or a table, not ${describeValue(value)} — write e.g. retry = 3 or retry = { attempts = 3, backoff = "1s" }`,
    );
    return undefined;
  }
  const retry = new FieldReader(node.context, value, [...node.path, 'retry'], `${node.subject} retry`);
  retry.rejectUnknown(RETRY_FIELDS, 'retry tables');
  const before = node.context.problems.length;
  if (value.attempts === undefined) retry.problem(undefined, `missing required field 'attempts' — add attempts = 3`);
  else if (!validAttempts(value.attempts)) {
    retry.problem(
      'attempts',
      `'attempts' must be an integer from 1 to ${MAX_ATTEMPTS}, not ${describeValue(value.attempts)} — write e.g. attempts = 3`,
    );
  }
  const backoffMs = retry.duration('backoff') ?? DEFAULT_BACKOFF_MS;
  const factor = retry.number('factor', 1) ?? DEFAULT_BACKOFF_FACTOR;
  const maxBackoffMs = retry.duration('max_backoff');
  if (maxBackoffMs !== undefined && maxBackoffMs < backoffMs) {
    retry.problem(
      'max_backoff',
      `'max_backoff' (${maxBackoffMs}ms) is shorter than 'backoff' (${backoffMs}ms) — raise max_backoff or lower backoff`,
    );
  }
  if (node.context.problems.length > before) return undefined;
  return { attempts: value.attempts as number, backoffMs, factor, ...(maxBackoffMs === undefined ? {} : { maxBackoffMs }) };
}
