/**
 * Run-store benchmark (spec §8), SQLite and PostgreSQL side by side: generates 100k runs
 * and 1M events into a temporary store of each kind, then measures `getRun` and a filtered `searchRuns` (status + label + created
 * range) p50/p99, event append throughput: one event per call in a loop, one event
 * per call from 64 concurrent writers (group commit), and 100 events per call; then the
 * live runs list's read (`listRunsUpdatedAfter`, the runs changed in the last 2 s). Writes
 * `bench/results/store.json` and `bench/results/store.md`. PostgreSQL: see bench/lib/postgres.ts.
 *
 *   node --import tsx bench/store/store.bench.ts      (BENCH_RUNS=10000 for a quick pass)
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { monotonicFactory } from 'ulid';
import type { NewRunEvent } from '../../src/runs/model/run-event.js';
import type { RunStatus } from '../../src/runs/model/run-status.js';
import { build } from 'esbuild';
import type { RunStore } from '../../src/runs/store/run-store.js';
import type { PostgresRunStore as PostgresRunStoreType } from '../../src/runs/store/postgres/postgres-run-store.js';
import type { ImportedRun, SqliteRunStore as SqliteRunStoreType } from '../../src/runs/store/sqlite/sqlite-run-store.js';
import { benchPostgres } from '../lib/postgres.js';
import { CACHE_DIR, REPO_ROOT } from '../lib/paths.js';
import { now } from '../lib/measure.js';
import { formatNumber, machineInfo, markdownTable, writeResults } from '../lib/report.js';
import { summarize, type Summary } from '../lib/stats.js';
import { mulberry32 } from '../../src/core/seeded-random.js';
import { DAY_MS, generateRuns, T0, TEAMS } from './generate-runs.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 100_000);
const EVENTS_PER_RUN = 10;
const GET_SAMPLES = 10_000;
const SEARCH_SAMPLES = 1_000;
const APPENDS = 20_000;
const WRITERS = 64;
const BATCH = 100;
const LIVE_SAMPLES = 500;

interface Row {
  metric: string;
  value: number;
  unit: string;
  digits: number;
  target?: { text: string; pass: boolean };
}

async function timeEach(count: number, call: () => Promise<unknown>): Promise<Summary> {
  const samples: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const started = now();
    await call();
    samples.push(now() - started);
  }
  return summarize(samples);
}

async function throughput(events: number, work: () => Promise<unknown>): Promise<number> {
  const started = now();
  await work();
  return events / ((now() - started) / 1000);
}

/**
 * The stores as weft ships them: bundled by esbuild like dist/, not through tsx (whose
 * transform wraps every function it creates to keep its name — measurable in a hot loop).
 */
async function loadStores(): Promise<{ SqliteRunStore: typeof SqliteRunStoreType; PostgresRunStore: typeof PostgresRunStoreType }> {
  const load = async <T>(source: string, name: string): Promise<T> => {
    const outfile = join(CACHE_DIR, 'store', `${name}.mjs`);
    await build({
      entryPoints: [join(REPO_ROOT, source)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'warning',
    });
    return (await import(pathToFileURL(outfile).href)) as T;
  };
  const [{ SqliteRunStore }, { PostgresRunStore }] = await Promise.all([
    load<{ SqliteRunStore: typeof SqliteRunStoreType }>('src/runs/store/sqlite/sqlite-run-store.ts', 'sqlite-run-store'),
    load<{ PostgresRunStore: typeof PostgresRunStoreType }>('src/runs/store/postgres/postgres-run-store.ts', 'postgres-run-store'),
  ]);
  return { SqliteRunStore, PostgresRunStore };
}

type BenchStore = RunStore & { importRuns(items: Iterable<ImportedRun>, batch?: number): Promise<number> };

interface Measured {
  rows: Row[];
  data: Record<string, unknown>;
}

async function measure(store: BenchStore, size: () => number): Promise<Measured> {
  const random = mulberry32(42);
  const ids: string[] = [];
  const loadStarted = now();
  const runs = await store.importRuns(generateRuns(RUNS, EVENTS_PER_RUN, mulberry32(7), ids));
  const loadSeconds = (now() - loadStarted) / 1000;
  const events = runs * EVENTS_PER_RUN;
  console.error(`generated ${runs} runs and ${events} events in ${loadSeconds.toFixed(1)} s`);
  const pick = () => ids[Math.floor(random() * ids.length)] as string;

  await timeEach(500, () => store.getRun(pick()));
  const get = await timeEach(GET_SAMPLES, () => store.getRun(pick()));

  const statusSets: RunStatus[][] = [['failed'], ['succeeded', 'failed'], ['running', 'blocked', 'paused'], ['cancelled']];
  let found = 0;
  const search = (withLabel: boolean) => async () => {
    const from = T0 + Math.floor(random() * 23) * DAY_MS;
    const page = await store.searchRuns({
      status: statusSets[Math.floor(random() * statusSets.length)] as RunStatus[],
      ...(withLabel ? { labels: { team: TEAMS[Math.floor(random() * TEAMS.length)] as string } } : {}),
      createdAfter: from,
      createdBefore: from + 7 * DAY_MS,
      limit: 50,
    });
    found += page.runs.length;
  };
  await timeEach(100, search(true));
  found = 0;
  const searched = await timeEach(SEARCH_SAMPLES, search(true));
  const pageSize = found / SEARCH_SAMPLES;
  const searchedNoLabel = await timeEach(SEARCH_SAMPLES, search(false));

  const event = (turn: number): NewRunEvent => ({
    type: 'model-turn-finished',
    stageId: 'implement@1',
    payload: { turn, inputTokens: 1200, outputTokens: 340, stopReason: 'tool_use' },
  });
  const sequential = await throughput(APPENDS, async () => {
    for (let index = 0; index < APPENDS; index += 1) await store.appendEvents(pick(), [event(index)]);
  });
  const writers = (appends: number) => () =>
    Promise.all(
      Array.from({ length: WRITERS }, async (_, writer) => {
        const run = ids[Math.floor((writer * ids.length) / WRITERS)] as string;
        for (let index = 0; index < appends / WRITERS; index += 1) await store.appendEvents(run, [event(index)]);
      }),
    );
  // Warm-up, as the other phases have: the writers' pages in the cache, the code compiled.
  await writers(APPENDS / 4)();
  const concurrent = await throughput(APPENDS, writers(APPENDS));
  const batched = await throughput(APPENDS, async () => {
    for (let index = 0; index < APPENDS / BATCH; index += 1)
      await store.appendEvents(
        pick(),
        Array.from({ length: BATCH }, (_, offset) => event(offset)),
      );
  });

  // The live runs list's read on each change notice: the runs changed in the last 2 s (the appends above, the newest first in time).
  const listedFrom = Date.now() - 2000;
  let changed = 0;
  const live = await timeEach(LIVE_SAMPLES, async () => {
    changed = (await store.listRunsUpdatedAfter({ updatedAt: listedFrom, id: '' }, 200)).runs.length;
  });

  const rows: Row[] = [
    {
      metric: `generate ${formatNumber(runs)} runs + ${formatNumber(events)} events (bulk import)`,
      value: loadSeconds,
      unit: 's',
      digits: 1,
    },
    { metric: 'database size', value: size() / 1024 / 1024, unit: 'MiB', digits: 0 },
    { metric: 'getRun p50', value: get.p50, unit: 'ms', digits: 3 },
    { metric: 'getRun p99', value: get.p99, unit: 'ms', digits: 3, target: { text: '< 5 ms', pass: get.p99 < 5 } },
    { metric: 'searchRuns status + label + created range, p50', value: searched.p50, unit: 'ms', digits: 3 },
    {
      metric: 'searchRuns status + label + created range, p99',
      value: searched.p99,
      unit: 'ms',
      digits: 3,
      target: { text: '< 50 ms', pass: searched.p99 < 50 },
    },
    {
      metric: 'searchRuns status + created range (no label), p99',
      value: searchedNoLabel.p99,
      unit: 'ms',
      digits: 3,
      target: { text: '< 50 ms', pass: searchedNoLabel.p99 < 50 },
    },
    { metric: 'runs per search page (limit 50), average', value: pageSize, unit: '', digits: 1 },
    {
      metric: `append, 1 event per call, ${WRITERS} concurrent writers`,
      value: concurrent,
      unit: 'events/s',
      digits: 0,
      target: { text: '> 20,000', pass: concurrent > 20_000 },
    },
    {
      metric: `append, ${BATCH} events per call`,
      value: batched,
      unit: 'events/s',
      digits: 0,
      target: { text: '> 20,000', pass: batched > 20_000 },
    },
    { metric: 'append, 1 event per call, one writer awaiting each (one commit per event)', value: sequential, unit: 'events/s', digits: 0 },
    { metric: 'runs changed in the last 2 s (live list read), p50', value: live.p50, unit: 'ms', digits: 3 },
    { metric: 'runs changed in the last 2 s (live list read), p99', value: live.p99, unit: 'ms', digits: 3 },
    { metric: 'runs in that read (up to 200)', value: changed, unit: '', digits: 0 },
  ];
  return {
    rows,
    data: {
      runs,
      events,
      samples: { get: GET_SAMPLES, search: SEARCH_SAMPLES, appends: APPENDS, live: LIVE_SAMPLES },
      get,
      searched,
      searchedNoLabel,
      live,
      liveRuns: changed,
    },
  };
}

const loadBefore = loadavg();

async function main(): Promise<void> {
  const { SqliteRunStore, PostgresRunStore } = await loadStores();
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-store-'));
  let sqlite: Measured;
  const sqliteStore = await SqliteRunStore.open({ storageDir: dir, newId: monotonicFactory() });
  try {
    sqlite = await measure(sqliteStore, () => statSync(sqliteStore.file).size);
  } finally {
    await sqliteStore.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const server = await benchPostgres();
  let postgres: Measured;
  try {
    const url = await server.createDatabase();
    const pgStore = await PostgresRunStore.open({ url, newId: monotonicFactory() });
    let bytes = 0;
    try {
      postgres = await measure(pgStore, () => bytes);
      bytes = await server.databaseBytes(url);
      postgres.rows[1] = { ...(postgres.rows[1] as Row), value: bytes / 1024 / 1024 };
    } finally {
      await pgStore.close();
    }
  } finally {
    await server.dispose();
  }
  report(sqlite, postgres, server.description);
}

function report(sqlite: Measured, postgres: Measured, server: string): void {
  const machine = machineInfo();
  const cell = (row: Row | undefined) =>
    row === undefined ? '' : `${formatNumber(row.value, row.digits)}${row.unit ? ` ${row.unit}` : ''}`;
  const pass = (row: Row | undefined) => (row?.target === undefined ? '' : row.target.pass ? 'yes' : '**no**');
  const table = markdownTable({
    headers: ['metric', 'SQLite', 'PostgreSQL', 'target', 'pass (SQLite / PostgreSQL)'],
    rows: sqlite.rows.map((row, index) => {
      const other = postgres.rows[index];
      return [row.metric, cell(row), cell(other), row.target?.text ?? '', row.target === undefined ? '' : `${pass(row)} / ${pass(other)}`];
    }),
    align: ['left', 'right', 'right', 'left', 'left'],
  });
  const markdown = [
    '# Run store benchmark (SQLite and PostgreSQL)',
    '',
    `${formatNumber(RUNS)} runs and ${formatNumber(RUNS * EVENTS_PER_RUN)} events in each store; Node ${machine.node}, ${machine.cpus} × ${machine.cpuModel}, ${machine.date}.`,
    `PostgreSQL: ${server}, on the same machine (its server processes share the same cores with the benchmark).`,
    `Load average (1, 5, 15 min) before ${loadBefore.map((value) => value.toFixed(2)).join(' ')}, after ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}.`,
    '',
    table,
    '',
    'Appends are transactions that survive a crash of weft; a crash of the machine (SQLite: WAL, synchronous=NORMAL) or of',
    'the database server (PostgreSQL: synchronous_commit off unless said otherwise above) may lose the last moments of commits.',
    'Both stores share commits between concurrent appends of one process (group commit): SQLite runs the appends of one',
    'event-loop turn in one transaction; PostgreSQL writes them with one statement (each run checked against its head and lease).',
    '',
  ].join('\n');
  const written = writeResults(
    'store',
    {
      benchmark: 'store',
      machine,
      server,
      loadBefore,
      loadAfter: loadavg(),
      sqlite: { rows: sqlite.rows, ...sqlite.data },
      postgres: { rows: postgres.rows, ...postgres.data },
    },
    markdown,
  );
  console.log(markdown);
  console.error(`wrote ${written.json} and ${written.markdown}`);
}

await main();
