/**
 * Model limits benchmark (issue 26): the wait a free model-limit slot adds to a model call,
 * p50/p99, on SQLite and PostgreSQL side by side in one run — an instant model call through
 * the limiter (a pool with room: the start's transaction in the store, the call, its end)
 * against the same call without limits. Two pools: `concurrent` only, and all three limits
 * set (the rate windows' counts too). Writes `bench/results/model-limits.json` and `.md`.
 *
 *   node --import tsx bench/run.ts model-limits      (BENCH_LIMIT_CALLS=300 for a quick pass)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '../../src/runs/store/sqlite/sqlite-run-store.js';
import { PostgresRunStore } from '../../src/runs/store/postgres/postgres-run-store.js';
import { benchPostgres } from '../lib/postgres.js';
import { formatNumber, machineInfo, markdownTable, writeResults } from '../lib/report.js';
import { modelLimitWait, type LimitWait } from './model-limit-wait.js';

const quick = process.argv.includes('--quick');
const CALLS = Number(process.env.BENCH_LIMIT_CALLS ?? (quick ? 100 : 2000));
const POOLS = {
  'concurrent = 1000': { concurrent: 1000 },
  'concurrent, requests_per_minute and tokens_per_minute (never full)': {
    concurrent: 1000,
    requestsPerMinute: 1_000_000,
    tokensPerMinute: 1_000_000_000,
  },
} as const;

type Measured = Record<keyof typeof POOLS, LimitWait>;

async function measure(open: () => Promise<SqliteRunStore | PostgresRunStore>): Promise<Measured> {
  const results: Partial<Measured> = {};
  for (const name of Object.keys(POOLS) as (keyof typeof POOLS)[]) {
    const store = await open();
    try {
      results[name] = await modelLimitWait(store, store.modelCalls(), CALLS, POOLS[name]);
    } finally {
      await store.close();
    }
  }
  return results as Measured;
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-limits-'));
  let sqlite: Measured;
  try {
    sqlite = await measure(async () => SqliteRunStore.open({ storageDir: mkdtempSync(join(dir, 'store-')) }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const server = await benchPostgres();
  let postgres: Measured;
  try {
    postgres = await measure(async () => PostgresRunStore.open({ url: await server.createDatabase() }));
  } finally {
    await server.dispose();
  }
  const rows = [
    ...Object.keys(POOLS).map((pool) => ['SQLite', pool, sqlite[pool as keyof typeof POOLS]] as const),
    ...Object.keys(POOLS).map((pool) => ['PostgreSQL', pool, postgres[pool as keyof typeof POOLS]] as const),
  ];
  const ms = (us: number) => formatNumber(us / 1000, 2);
  const machine = machineInfo();
  const markdown = [
    '# Model limits: the wait a free slot adds',
    '',
    `${machine.date} · ${machine.cpuModel} × ${machine.cpus} · Node ${machine.node} · load before ${loadBefore.map((value) => value.toFixed(2)).join(' ')} · after ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
    '',
    `${CALLS} instant model calls each way, alternating, one run under a live lease; milliseconds.`,
    '',
    markdownTable({
      headers: ['store', 'pool', 'without limits p50', 'without p99', 'free slot p50', 'free slot p99', 'added p50', 'added p99'],
      rows: rows.map(([store, pool, wait]) => [
        store,
        pool,
        ms(wait.without.p50),
        ms(wait.without.p99),
        ms(wait.with.p50),
        ms(wait.with.p99),
        ms(wait.with.p50 - wait.without.p50),
        ms(wait.with.p99 - wait.without.p99),
      ]),
    }),
    '',
    'A free slot costs two writes in the store per call: the start (count the pool, insert the call; SQLite: one immediate transaction; PostgreSQL: a transaction with the pool’s advisory lock, a prune-and-count statement and the insert) and the end (one update). Every call of the run stays in the 60 s window, as a busy pool’s would.',
  ].join('\n');
  const written = writeResults(
    'model-limits',
    { benchmark: 'model-limits', machine, loadBefore, loadAfter: loadavg(), calls: CALLS, sqlite, postgres },
    markdown,
  );
  console.log(markdown);
  console.error(`wrote ${written.json} and ${written.markdown}`);
}

await main();
