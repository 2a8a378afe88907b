/**
 * `[llm.limits."<provider:model pattern>"]`: model limits shared by every runner on every
 * host (docs/spend-and-flow.md). Each table is one pool named by its pattern; every table
 * whose pattern matches a call's `provider:model` applies to it. This module owns the
 * settings' side: the fields, the pattern rules (only `*` is a wildcard) and the merge of
 * the user's and the project's tables; the store keeps the pools' slots and windows.
 */
import type { Shape } from './settings-shape.js';

/** One pool's limits; at least one is set. */
export interface LlmLimitSetting {
  /** Calls in flight at once. */
  concurrent?: number;
  /** Calls started in the last 60 s. */
  requestsPerMinute?: number;
  /** Tokens (input + output) of the calls that ended in the last 60 s. */
  tokensPerMinute?: number;
}

const POSITIVE: Shape = { kind: 'integer', min: 1 };

export const LIMIT_TABLE: Shape = {
  kind: 'table',
  fields: { concurrent: POSITIVE, requests_per_minute: POSITIVE, tokens_per_minute: POSITIVE },
};

const EXAMPLE = 'a "provider:model" pattern such as "anthropic:*" or "openai:gpt-5*" (only * is a wildcard)';

/** What is wrong with a pattern, or undefined when it is a usable one. */
export function limitPatternProblem(pattern: string): string | undefined {
  const colon = pattern.indexOf(':');
  if (colon <= 0 || colon === pattern.length - 1) return `must be ${EXAMPLE}`;
  if (/\s/.test(pattern)) return `must be ${EXAMPLE}, without spaces`;
  const other = /[?[\]{}()!+@]/.exec(pattern);
  if (other) return `must be ${EXAMPLE}; '${other[0]}' is not a wildcard here`;
  return undefined;
}

/** Whether `pattern` (`*` matching any run of characters) matches `provider:model` whole: the glob of `[llm.limits]` and `[llm.prices]`. */
export function modelPatternMatches(pattern: string, key: string): boolean {
  if (!pattern.includes('*')) return pattern === key;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`).test(key);
}

/** Problems with the `[llm.limits]` tables of one file, each naming the table (the shape check has typed their fields). */
export function checkLimitTables(limits: unknown): string[] {
  if (limits === null || typeof limits !== 'object' || Array.isArray(limits)) return [];
  const problems: string[] = [];
  for (const [pattern, table] of Object.entries(limits as Record<string, unknown>)) {
    const problem = limitPatternProblem(pattern);
    if (problem !== undefined) problems.push(`table [llm.limits."${pattern}"]: the pattern ${problem}`);
    if (table !== null && typeof table === 'object' && Object.keys(table).length === 0)
      problems.push(`table [llm.limits."${pattern}"] sets no limit: give concurrent, requests_per_minute or tokens_per_minute`);
  }
  return problems;
}

/** The user's tables, then the project's (a project table replaces the user's of the same pattern whole). */
export function mergeLimitTables(user: unknown, project: unknown): Record<string, LlmLimitSetting> {
  const merged: Record<string, LlmLimitSetting> = {};
  for (const tables of [user, project]) {
    if (tables === null || typeof tables !== 'object') continue;
    for (const [pattern, table] of Object.entries(tables as Record<string, Record<string, number | undefined>>)) {
      merged[pattern] = {
        ...(table.concurrent === undefined ? {} : { concurrent: table.concurrent }),
        ...(table.requests_per_minute === undefined ? {} : { requestsPerMinute: table.requests_per_minute }),
        ...(table.tokens_per_minute === undefined ? {} : { tokensPerMinute: table.tokens_per_minute }),
      };
    }
  }
  return merged;
}
