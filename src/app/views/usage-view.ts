/**
 * Spend over many runs as MCP and HTTP clients see it (snake_case, ISO times): the same
 * token and cost views as one run's.
 */
import * as z from 'zod';
import type { UsageSummary } from '../services/usage-summary.js';
import { costSchema, costView, isoTime, tokenUsageSchema, tokenUsageView } from './run-view.js';

const groupSchema = z.object({
  key: z
    .string()
    .describe(
      'The workflow, the label as key=value ("(no labels)" for none), or provider:model ("unknown" where a turn did not say, e.g. CLI stages)',
    ),
  runs: z.number().int(),
  tokens: tokenUsageSchema,
  cost: costSchema.nullable(),
});

export const usageSummarySchema = z.object({
  since: z.string().describe('ISO 8601: runs created after this time are counted'),
  runs: z.number().int().describe('Runs created since then, archived ones included'),
  tokens: tokenUsageSchema,
  cost: costSchema.nullable().describe('null when no turn had a price'),
  groups: z.array(groupSchema).nullable().describe('With group_by: largest spend first. A run with several labels counts under each'),
});
export type UsageSummaryView = z.infer<typeof usageSummarySchema>;

export function usageSummaryView(summary: UsageSummary): UsageSummaryView {
  return {
    since: isoTime(summary.since),
    runs: summary.runs,
    tokens: tokenUsageView(summary.usage),
    cost: costView(summary.usage),
    groups:
      summary.groups?.map((group) => ({
        key: group.key,
        runs: group.runs,
        tokens: tokenUsageView(group.usage),
        cost: costView(group.usage),
      })) ?? null,
  };
}
