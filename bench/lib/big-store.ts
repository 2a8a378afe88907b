/**
 * bench/lib: the large run store the read benchmarks query — `runs` runs of
 * `eventsPerRun` events each, made by the store's bulk import from the seeded generator —
 * built once per name and size and kept in the cache dir between runs.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monotonicFactory } from 'ulid';
import { SqliteRunStore } from '../../src/runs/store/sqlite/sqlite-run-store.js';
import { mulberry32 } from '../../src/core/seeded-random.js';
import { generateRuns } from '../store/generate-runs.js';
import { now } from './measure.js';
import { CACHE_DIR } from './paths.js';
import { formatNumber } from './report.js';

export interface BigStore {
  /** The storage dir holding `weft.db`. */
  dir: string;
  /** Every run id, in creation order. */
  ids: string[];
  /** Seconds it took to build it now; null when it came from the cache. */
  generatedSeconds: number | null;
}

/** @example const { dir, ids } = await bigStore('serve', 100_000, 10); */
export async function bigStore(name: string, runs: number, eventsPerRun: number): Promise<BigStore> {
  const dir = join(CACHE_DIR, `${name}-${runs}-runs`);
  const idsFile = join(dir, 'ids.json');
  if (existsSync(idsFile)) return { dir, ids: JSON.parse(readFileSync(idsFile, 'utf8')) as string[], generatedSeconds: null };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const store = await SqliteRunStore.open({ storageDir: dir, newId: monotonicFactory() });
  const ids: string[] = [];
  const started = now();
  try {
    await store.importRuns(generateRuns(runs, eventsPerRun, mulberry32(7), ids), 2000);
  } finally {
    await store.close();
  }
  const generatedSeconds = (now() - started) / 1000;
  writeFileSync(idsFile, JSON.stringify(ids));
  console.error(`generated ${formatNumber(runs)} runs in ${generatedSeconds.toFixed(1)} s (cached in ${dir})`);
  return { dir, ids, generatedSeconds };
}
