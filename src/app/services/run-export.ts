/**
 * `weft export <run>`: one run as JSON Lines — a `run` line (the run's record), every event
 * in order (`event` lines, the store's shape as `weft events` prints it), then an `artifact`
 * line per file the run's tools saved (path and size; the files themselves stay where they
 * are). Each line's `type` says which of the three it is; the set of lines is stable.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunService } from './run-service.js';

export type RunExportLine =
  | { type: 'run'; format: 'weft-run-export'; version: 1; run: unknown }
  | { type: 'event'; event: unknown }
  | { type: 'artifact'; path: string; bytes: number };

/** The lines of a run's export, read a page of events at a time. */
export async function* exportRun(runs: RunService, storageDir: string, id: string): AsyncGenerator<RunExportLine> {
  const run = await runs.get(id);
  yield { type: 'run', format: 'weft-run-export', version: 1, run };
  for await (const event of runs.allEvents(run.id)) yield { type: 'event', event };
  for (const path of await filesUnder(join(storageDir, 'artifacts', run.id)))
    yield { type: 'artifact', path, bytes: (await stat(path)).size };
}

async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}
