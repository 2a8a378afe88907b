/**
 * Run throughput (issues 4 and 14): a 3-stage workflow of `true` commands. First one
 * in-process runner with `maxParallel` 8 on the embedded SQLite store, 8 runs in flight:
 * runs/s end to end (create → succeeded) and per-run latency p50/p99. Then the queue
 * drained by 1, 2 and 4 `weft worker` processes, on SQLite and on PostgreSQL (see
 * worker-processes.ts; PostgreSQL as in bench/lib/postgres.ts). Writes
 * `bench/results/runs.json` and `bench/results/runs.md`. Needs `npm run build` first.
 *
 *   node --import tsx bench/runs/runs.bench.ts      (BENCH_RUN_COUNT=40 for a quick pass)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId } from '../../src/core/ids.js';
import { silentLogger } from '../../src/core/logger.js';
import type { RunToolboxFactory } from '../../src/runs/engine/stage-context.js';
import { Worker } from '../../src/runs/engine/worker.js';
import { RunService } from '../../src/app/services/run-service.js';
import { PostgresRunStore } from '../../src/runs/store/postgres/postgres-run-store.js';
import { SqliteRunStore } from '../../src/runs/store/sqlite/sqlite-run-store.js';
import { benchPostgres } from '../lib/postgres.js';
import { now } from '../lib/measure.js';
import { formatNumber, machineInfo, markdownTable, writeResults } from '../lib/report.js';
import { summarize } from '../lib/stats.js';
import { drain, type DrainResult } from './worker-processes.js';

const RUN_COUNT = Number(process.env.BENCH_RUN_COUNT ?? 200);
const PARALLEL = 8;
const DRAIN_COUNT = Number(process.env.BENCH_DRAIN_COUNT ?? 200);
const WORKER_COUNTS = [1, 2, 4];

const WORKFLOW = `
[nodes.one]
kind = "command"
run = "true"
next = "two"
[nodes.two]
kind = "command"
run = "true"
next = "three"
[nodes.three]
kind = "command"
run = "true"
`;

// Command stages never touch tools; a toolbox that is never built keeps the bench about the engine.
const noToolbox: RunToolboxFactory = () => Promise.reject(new Error('this benchmark has no tool stages'));

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-runs-'));
  try {
    const workflow = join(dir, 'three.toml');
    writeFileSync(workflow, WORKFLOW);
    const store = await SqliteRunStore.open({ storageDir: join(dir, 'home') });
    const worker = new Worker({ store, workerId: `bench-${newId()}`, logger: silentLogger, clock: Date.now, newId, toolboxFactory: noToolbox, leaseMs: 30_000, heartbeatMs: 10_000, maxParallel: PARALLEL, pollMs: 5 });
    const runs = new RunService({ store, clock: Date.now, wakeRunners: () => worker.wake() });
    const stop = new AbortController();
    const working = worker.run(stop.signal);

    const latencies: number[] = [];
    let next = 0;
    const started = now();
    // Keep PARALLEL runs in flight: each lane creates a run, waits for it, and takes the next.
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next < RUN_COUNT) {
          next += 1;
          const begin = now();
          const run = await runs.create({ workflow, cwd: dir, autoApprove: true });
          const { runs: [current], timedOut } = await runs.wait([run.id], 60_000);
          if (timedOut || current?.status !== 'succeeded') throw new Error(`run ${run.id} ${current?.status ?? 'missing'}: ${current?.reason ?? ''}`);
          latencies.push(now() - begin);
        }
      }),
    );
    const elapsedMs = now() - started;
    stop.abort();
    await working;
    await store.close();

    const drains = await drainAll(dir, workflow);

    const latency = summarize(latencies);
    const perSecond = (RUN_COUNT / elapsedMs) * 1000;
    const rows = [
      ['runs (3 command stages each)', formatNumber(RUN_COUNT)],
      ['concurrent runs', String(PARALLEL)],
      ['throughput (runs/s)', formatNumber(perSecond, 1)],
      ['stages/s', formatNumber(perSecond * 3, 1)],
      ['run latency p50 (ms)', formatNumber(latency.p50, 1)],
      ['run latency p99 (ms)', formatNumber(latency.p99, 1)],
    ];
    const info = machineInfo();
    const markdown = [
      '# Run throughput — 3-stage `command` workflow, 8 runs at a time',
      '',
      `${info.date} · Node ${info.node} · ${info.platform} · ${info.cpus} × ${info.cpuModel}`,
      '',
      'One runner (`Worker`, maxParallel 8) on the embedded SQLite store; every stage spawns `/bin/bash -c true` in its own process group and records stage-started/stage-finished events. Latency is create → succeeded as `RunService.wait` (woken by change notices) sees it.',
      '',
      markdownTable({ headers: ['metric', 'value'], rows }),
      '',
      `## Draining ${DRAIN_COUNT} queued runs with worker processes`,
      '',
      `Each \`weft worker\` process runs up to 8 runs at once. ${drains.server}; it runs on the same machine and shares its cores with the workers and the stages' shells.`,
      '',
      markdownTable({
        headers: ['worker processes', 'SQLite runs/s', 'PostgreSQL runs/s'],
        rows: drains.sqlite.map((result, index) => [String(result.workers), formatNumber(result.runsPerSecond, 1), formatNumber(drains.postgres[index]?.runsPerSecond, 1)]),
      }),
      '',
    ].join('\n');
    writeResults('runs', { machine: info, runs: RUN_COUNT, parallel: PARALLEL, elapsedMs, runsPerSecond: perSecond, latency, drains }, markdown);
    process.stdout.write(`${markdown}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function drainAll(dir: string, workflow: string): Promise<{ server: string; sqlite: DrainResult[]; postgres: DrainResult[] }> {
  const sqlite: DrainResult[] = [];
  for (const workers of WORKER_COUNTS) {
    const home = join(dir, `sqlite-${workers}`);
    const store = await SqliteRunStore.open({ storageDir: home });
    try {
      sqlite.push(await drain({ store, workflow, dir, count: DRAIN_COUNT, workers, home: () => home, env: {} }));
    } finally {
      await store.close();
    }
  }
  const server = await benchPostgres();
  const postgres: DrainResult[] = [];
  try {
    for (const workers of WORKER_COUNTS) {
      const url = await server.createDatabase();
      const store = await PostgresRunStore.open({ url });
      try {
        postgres.push(await drain({ store, workflow, dir, count: DRAIN_COUNT, workers, home: (index) => join(dir, `pg-${workers}-host-${index}`), env: { WEFT_DATABASE_URL: url } }));
      } finally {
        await store.close();
      }
    }
  } finally {
    await server.dispose();
  }
  return { server: `PostgreSQL: ${server.description}`, sqlite, postgres };
}

await main();
