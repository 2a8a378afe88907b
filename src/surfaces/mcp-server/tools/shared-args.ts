/**
 * Argument schemas several tools share, so a run id or a label filter is described and
 * checked the same way everywhere.
 */
import * as z from 'zod';

/** A run id, a unique prefix of one or `@last`: RunService resolves it (INVALID_ID, RUN_NOT_FOUND otherwise). */
export function runIdArg(description: string): z.ZodString {
  return z.string().min(1).max(64).describe(`${description} (a 26-character ULID run id, any unique prefix of one, or "@last" for the newest run)`);
}

export const labelsArg = z
  .record(z.string(), z.string())
  .describe('Labels as string key/value pairs, e.g. {"team": "docs"}');
