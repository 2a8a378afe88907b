/**
 * Completion of a run id argument (the review prompt, the per-run resource template): the
 * ids of the most recent runs, archived ones included, that start with what was typed.
 */
import { RECENT_RUNS } from './run-watcher.js';
import type { McpServerDeps } from './tool-kit.js';

export async function completeRunId(deps: McpServerDeps, typed: string): Promise<string[]> {
  const page = await (await deps.runs()).search({ limit: RECENT_RUNS, archived: 'any' });
  const prefix = typed.toUpperCase();
  return page.runs.map((run) => run.id).filter((id) => id.startsWith(prefix));
}
