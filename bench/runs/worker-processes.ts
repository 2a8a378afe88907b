/**
 * Run throughput with runners as separate processes (`weft worker`, maxParallel 8 each),
 * the way several hosts would share one queue: all runs are queued at once, and the clock
 * runs from the first queued run to the last one ending. SQLite workers share the storage
 * dir's database file; PostgreSQL workers each get a storage dir of their own, as on
 * separate machines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { RunService } from '../../src/app/services/run-service.js';
import type { RunRecord } from '../../src/runs/model/run-record.js';
import { ChangeLatch } from '../../src/runs/store/change-latch.js';
import type { RunStore } from '../../src/runs/store/run-store.js';
import { now } from '../lib/measure.js';
import { REPO_ROOT } from '../lib/paths.js';

export interface DrainResult {
  workers: number;
  runs: number;
  elapsedMs: number;
  runsPerSecond: number;
}

function startWorker(dir: string, home: string, env: Record<string, string>): ChildProcess {
  mkdirSync(home, { recursive: true });
  return spawn(process.execPath, [join(REPO_ROOT, 'bin/weft.js'), '--cwd', dir, 'worker', '--max-parallel', '8'], {
    cwd: dir,
    env: { ...process.env, WEFT_HOME: home, ...env },
    stdio: 'ignore',
  });
}

async function stop(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
}

/**
 * Queues `count` runs of `workflow` and waits for `workers` worker processes to finish them.
 * `home(index)` is worker index's storage dir; `env` points the workers at the store. With
 * `ready`, the clock starts once it resolves (every worker started and listening), so the
 * rate is the queue's alone; without, it includes the workers' start.
 */
export async function drain(params: {
  store: RunStore;
  workflow: string;
  dir: string;
  count: number;
  workers: number;
  home: (index: number) => string;
  env: Record<string, string>;
  ready?: (workers: number) => Promise<void>;
}): Promise<DrainResult> {
  const { store, workflow, dir, count, workers } = params;
  const children = Array.from({ length: workers }, (_, index) => startWorker(dir, params.home(index), params.env));
  try {
    await params.ready?.(workers);
    const runs = new RunService({ store, clock: Date.now, wakeRunners: () => {} });
    const started = now();
    const ids = await Promise.all(
      Array.from({ length: count }, async () => (await runs.create({ workflow, cwd: dir, autoApprove: true })).id),
    );
    // One query per change notice (not one read per run, as RunService.wait does), so measuring costs the store little.
    const changes = new ChangeLatch(store);
    let ended: RunRecord[] = [];
    try {
      while (ended.length < count) {
        ended = (await store.searchRuns({ ids, status: ['succeeded', 'failed', 'cancelled'], limit: 500 })).runs;
        if (ended.length < count) await changes.next(1000);
      }
    } finally {
      changes.close();
    }
    const elapsedMs = now() - started;
    const failed = ended.filter((run) => run.status !== 'succeeded');
    if (failed.length > 0)
      throw new Error(`${failed.length} of ${count} runs did not succeed (${failed[0]?.status}: ${failed[0]?.reason ?? ''})`);
    return { workers, runs: count, elapsedMs, runsPerSecond: (count / elapsedMs) * 1000 };
  } finally {
    await stop(children);
  }
}
