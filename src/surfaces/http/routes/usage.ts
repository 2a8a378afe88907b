/**
 * `/api/v1/usage`: tokens and cost summed over the runs created since a time, in total and
 * grouped by workflow, label or model (`app/services/usage-summary.ts`).
 */
import * as z from 'zod';
import { WeftError } from '../../../core/errors.js';
import { parseSince, summarizeUsage, USAGE_GROUPS } from '../../../app/services/usage-summary.js';
import { usageSummarySchema, usageSummaryView } from '../../../app/views/usage-view.js';
import { defineRoute, type ApiRoute } from '../api-route.js';
import { HttpFailure } from '../error-response.js';
import type { HttpDeps } from '../http-deps.js';

const usageQuery = z
  .object({
    since: z.string().min(1).default('7d').describe('An age such as 7d, 24h or 30m, or an ISO 8601 time (default 7d)'),
    group_by: z.enum(USAGE_GROUPS).optional().describe('workflow, label (each key=value) or model (provider:model)'),
    workflow: z.string().min(1).optional().describe('Only runs of this workflow'),
  })
  .strict();

export function usageRoutes(deps: HttpDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/usage',
      summary:
        'Tokens and cost summed over the runs created since a time, in total and by workflow, label or model; reported and estimated cost kept apart',
      query: usageQuery,
      response: usageSummarySchema,
      async handle({ query }) {
        let since: number;
        try {
          since = parseSince(query.since, Date.now(), 'since');
        } catch (error) {
          if (WeftError.is(error)) throw new HttpFailure('INVALID_ARGUMENTS', `Invalid query: ${error.message}`);
          throw error;
        }
        const summary = await summarizeUsage(await deps.runs(), {
          since,
          ...(query.group_by ? { groupBy: query.group_by } : {}),
          ...(query.workflow ? { workflow: query.workflow } : {}),
        });
        return { json: usageSummaryView(summary) };
      },
    }),
  ];
}
