/**
 * A budget table — `[run.budget]` or `[nodes.<name>.budget]` — with the same fields and the
 * same messages in both places, each problem at the line of the offending key.
 */
import { defined, FieldReader } from './field-reader.js';
import type { RunBudgetSpec } from './types.js';

const BUDGET_FIELDS = ['max_cost_usd', 'max_tokens', 'max_duration', 'on_exceeded'] as const;

/** The `budget` subtable of `parent`, checked; undefined when absent. */
export function parseBudgetTable(parent: FieldReader): RunBudgetSpec | undefined {
  const table = parent.subtable('budget');
  if (table === undefined) return undefined;
  const label = `[${[...parent.path, 'budget'].join('.')}]`;
  const budget = new FieldReader(parent.context, table, [...parent.path, 'budget'], label);
  budget.rejectUnknown(BUDGET_FIELDS, `${label} tables`);
  const limits = {
    maxCostUsd: budget.number('max_cost_usd', 0),
    maxTokens: budget.integer('max_tokens', 1),
    maxDurationMs: budget.duration('max_duration'),
  };
  // A limit written with a bad value has its own message; this one is for a table that names none.
  if (!budget.has('max_cost_usd') && !budget.has('max_tokens') && !budget.has('max_duration')) {
    parent.problem('budget', `${label} sets no limit — write max_cost_usd = 5, max_tokens = 2000000 or max_duration = "2h"`);
  }
  return defined<RunBudgetSpec>({ ...limits, onExceeded: budget.oneOf('on_exceeded', ['pause', 'fail'] as const) ?? 'pause' });
}
