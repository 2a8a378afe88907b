/**
 * Only the append rows of bench/store, on PostgreSQL, for one or more checkouts side by side
 * (e.g. main's code and a branch's) on one embedded server: each checkout's store is
 * bundled from its own `src/`, gets its own database loaded with the same runs, and the
 * rounds alternate between checkouts so drift on a shared machine hits each alike. Reports
 * events/s per round (median), and the server's CPU (every backend of this server) and the
 * bench process's CPU per event, and how many run-row updates were HOT.
 *
 *   node --import tsx bench/store/pg-appends.ts [checkout…]     (default: this checkout)
 *   BENCH_RUNS=100000 BENCH_ROUNDS=5 node --import tsx bench/store/pg-appends.ts /work/main .
 *
 * A checkout may carry store options and SQL run after the load, for trying variants:
 * `.##{"inFlight":2}` (the store's `appendBatches`), `.@@DROP INDEX …; VACUUM runs`.
 *
 * Not a `*.bench.ts`: `bench/run.ts store` runs the full benchmark, which has these rows too.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { basename, join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import pg from 'pg';
import { monotonicFactory } from 'ulid';
import type { NewRunEvent } from '../../src/runs/model/run-event.js';
import type { PostgresRunStore as PostgresRunStoreType } from '../../src/runs/store/postgres/postgres-run-store.js';
import { mulberry32 } from '../../src/core/seeded-random.js';
import { benchPostgres } from '../lib/postgres.js';
import { CACHE_DIR } from '../lib/paths.js';
import { summarizeProfile } from '../lib/cpu-profile.js';
import { now } from '../lib/measure.js';
import { median } from '../lib/stats.js';
import { generateRuns } from './generate-runs.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const APPENDS = Number(process.env.BENCH_APPENDS ?? 20_000);
const WRITERS = Number(process.env.BENCH_WRITERS ?? 64);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 2_000);
const BATCH = 100;
/** BENCH_PROFILE=1: CPU-profile this process over the 64-writer rounds and print where the time went. */
const PROFILE = process.env.BENCH_PROFILE === '1';
/** BENCH_PG_STATEMENTS=1: load pg_stat_statements and print each statement's calls, planning and execution time over the 64-writer and the one-writer rounds. */
const STATEMENTS = process.env.BENCH_PG_STATEMENTS === '1';

interface Contender {
  label: string;
  store: PostgresRunStoreType;
  url: string;
  ids: string[];
  concurrent: number[];
  sequential: number[];
  batched: number[];
  /** listRunsUpdatedAfter of the last 2 s, p50 ms per round. */
  live: number[];
  serverCpuPerEvent: number[];
  benchCpuPerEvent: number[];
}

async function loadStore(checkout: string, label: string): Promise<typeof PostgresRunStoreType> {
  const outfile = join(CACHE_DIR, 'pg-appends', `${label}.mjs`);
  await build({
    entryPoints: [join(checkout, 'src/runs/store/postgres/postgres-run-store.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  return ((await import(pathToFileURL(outfile).href)) as { PostgresRunStore: typeof PostgresRunStoreType }).PostgresRunStore;
}

/**
 * CPU seconds (user + system) of the server `admin` is connected to: its postmaster, every
 * live child (backends, WAL writer, checkpointer, autovacuum) and the children that ended.
 */
async function serverCpuSeconds(admin: pg.Client): Promise<number> {
  const { rows } = await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const stat = (pid: number | string) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const postmaster = Number(stat(rows[0]?.pid ?? 0)[1]);
  const ticks = (fields: string[], from: number, count: number) =>
    fields.slice(from, from + count).reduce((sum, field) => sum + Number(field), 0);
  let total = ticks(stat(postmaster), 11, 4);
  for (const child of readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) {
    try {
      total += ticks(stat(child), 11, 2);
    } catch {
      // A child that ended between the listing and the read (its time moves to the postmaster's).
    }
  }
  return total / 100;
}

const event = (turn: number): NewRunEvent => ({
  type: 'model-turn-finished',
  stageId: 'implement@1',
  payload: { turn, inputTokens: 1200, outputTokens: 340, stopReason: 'tool_use' },
});

async function concurrentRound(contender: Contender, appends: number): Promise<void> {
  const { store, ids } = contender;
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, writer) => {
      const run = ids[Math.floor((writer * ids.length) / WRITERS)] as string;
      for (let index = 0; index < appends / WRITERS; index += 1) await store.appendEvents(run, [event(index)]);
    }),
  );
}

/** Events/s of `work`; with `cpu`, also the server's and this process's CPU per event. */
async function measured(events: number, work: () => Promise<void>, cpu?: { contender: Contender; admin: pg.Client }): Promise<number> {
  const server = cpu === undefined ? 0 : await serverCpuSeconds(cpu.admin);
  const bench = process.cpuUsage();
  const started = now();
  await work();
  const seconds = (now() - started) / 1000;
  if (cpu !== undefined) {
    const used = process.cpuUsage(bench);
    cpu.contender.serverCpuPerEvent.push(((await serverCpuSeconds(cpu.admin)) - server) / events);
    cpu.contender.benchCpuPerEvent.push((used.user + used.system) / 1e6 / events);
  }
  return events / seconds;
}

async function printStatements(admin: pg.Client, label: string): Promise<void> {
  const { rows } = await admin.query<{ calls: string; plans: string; plan_ms: number; exec_ms: number; rows: string; query: string }>(
    "SELECT calls, plans, mean_plan_time AS plan_ms, mean_exec_time AS exec_ms, rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 70) AS query FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT 6",
  );
  console.log(`statements, ${label}:`);
  for (const row of rows)
    console.log(
      `  ${row.calls} calls, ${row.plans} plans (${row.plan_ms.toFixed(3)} ms each), exec ${row.exec_ms.toFixed(3)} ms each, ${row.rows} rows: ${row.query}`,
    );
}

const profiles = new Map<string, string[]>();

async function profiled(label: string, work: () => Promise<void>): Promise<void> {
  if (!PROFILE) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  try {
    await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    const file = join(CACHE_DIR, 'pg-appends', `${label}-${(profiles.get(label) ?? []).length}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    profiles.set(label, [...(profiles.get(label) ?? []), file]);
  }
}

function printProfiles(): void {
  for (const [label, files] of profiles) {
    const summaries = files.map((file) => summarizeProfile(file, { bundleDir: join(CACHE_DIR, 'pg-appends') }));
    const busy = summaries.reduce((sum, summary) => sum + summary.busyMs, 0);
    const total = summaries.reduce((sum, summary) => sum + summary.totalMs, 0);
    const add = (into: Map<string, number>, key: string, ms: number) => into.set(key, (into.get(key) ?? 0) + ms);
    const modules = new Map<string, number>();
    const functions = new Map<string, number>();
    for (const summary of summaries) {
      for (const entry of summary.modules) add(modules, entry.module, entry.ms);
      for (const entry of summary.functions) add(functions, `${entry.name} (${entry.where})`, entry.ms);
    }
    const top = (map: Map<string, number>, count: number) =>
      [...map]
        .sort((a, b) => b[1] - a[1])
        .slice(0, count)
        .map(([key, ms]) => `  ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${key}`)
        .join('\n');
    console.log(
      `\nprofile ${label}: busy ${((100 * busy) / total).toFixed(0)} % of ${total.toFixed(0)} ms\nmodules:\n${top(modules, 15)}\nfunctions:\n${top(functions, 30)}`,
    );
  }
}

async function hotUpdates(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const row = (
      await client.query<{ n_tup_upd: string; n_tup_hot_upd: string }>(
        "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'runs'",
      )
    ).rows[0];
    return `${row?.n_tup_hot_upd ?? '?'} of ${row?.n_tup_upd ?? '?'}`;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const checkouts = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['.'];
  console.log(
    `load average before: ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
  const server = await benchPostgres(
    STATEMENTS ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track_planning': 'on' } : undefined,
  );
  const contenders: Contender[] = [];
  try {
    for (const [index, argument] of checkouts.entries()) {
      const [head = '.', afterLoad] = argument.split('@@');
      const [checkout = '.', options] = head.split('##');
      const label = `${index}-${basename(resolve(checkout))}${options === undefined ? '' : options.replace(/[^a-zA-Z0-9:,]/g, '')}`;
      const PostgresRunStore = await loadStore(resolve(checkout), label);
      const url = await server.createDatabase();
      const store = await PostgresRunStore.open({
        url,
        newId: monotonicFactory(),
        ...(options === undefined ? {} : { appendBatches: JSON.parse(options) as object }),
      });
      const ids: string[] = [];
      await store.importRuns(generateRuns(RUNS, 10, mulberry32(7), ids));
      if (afterLoad !== undefined) {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          for (const statement of afterLoad.split(';')) await client.query(statement);
        } finally {
          await client.end();
        }
      }
      contenders.push({
        label,
        store,
        url,
        ids,
        concurrent: [],
        sequential: [],
        batched: [],
        live: [],
        serverCpuPerEvent: [],
        benchCpuPerEvent: [],
      });
      console.log(`${label}: loaded ${RUNS} runs`);
    }
    const admin = new pg.Client({ connectionString: contenders[0]?.url });
    await admin.connect();
    if (STATEMENTS) await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    try {
      for (const contender of contenders) await concurrentRound(contender, APPENDS / 4);
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const contender of round % 2 === 0 ? contenders : [...contenders].reverse()) {
          if (STATEMENTS) await admin.query('SELECT pg_stat_statements_reset()');
          contender.concurrent.push(
            await measured(APPENDS, () => profiled(contender.label, () => concurrentRound(contender, APPENDS)), { contender, admin }),
          );
          if (STATEMENTS) await printStatements(admin, contender.label);
          const random = mulberry32(round);
          if (STATEMENTS) await admin.query('SELECT pg_stat_statements_reset()');
          contender.sequential.push(
            await measured(SEQUENTIAL, async () => {
              for (let index = 0; index < SEQUENTIAL; index += 1)
                await contender.store.appendEvents(contender.ids[Math.floor(random() * contender.ids.length)] as string, [event(index)]);
            }),
          );
          if (STATEMENTS) await printStatements(admin, `${contender.label}, one writer`);
          contender.batched.push(
            await measured(APPENDS, async () => {
              for (let index = 0; index < APPENDS / BATCH; index += 1)
                await contender.store.appendEvents(
                  contender.ids[Math.floor(random() * contender.ids.length)] as string,
                  Array.from({ length: BATCH }, (_, offset) => event(offset)),
                );
            }),
          );
          const from = Date.now() - 2000;
          const reads: number[] = [];
          for (let index = 0; index < 200; index += 1) {
            const started = now();
            await contender.store.listRunsUpdatedAfter({ updatedAt: from, id: '' }, 200);
            reads.push(now() - started);
          }
          contender.live.push(median(reads));
          console.log(
            `round ${round + 1} ${contender.label}: ${WRITERS} writers ${Math.round(contender.concurrent.at(-1) ?? 0)} events/s, one writer ${Math.round(contender.sequential.at(-1) ?? 0)} events/s, ${BATCH} per call ${Math.round(contender.batched.at(-1) ?? 0)} events/s (load ${loadavg()[0]?.toFixed(2)})`,
          );
        }
      }
    } finally {
      await admin.end();
    }
    console.log(
      `\nload average after: ${loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')}; ${RUNS} runs, ${APPENDS} appends per round, ${ROUNDS} rounds, medians`,
    );
    for (const contender of contenders) {
      const perEvent = (values: number[]) => `${(median(values) * 1e6).toFixed(0)} µs`;
      console.log(
        `${contender.label}: ${WRITERS} writers ${Math.round(median(contender.concurrent))} events/s [${contender.concurrent.map(Math.round).join(', ')}], one writer ${Math.round(median(contender.sequential))} events/s, ${BATCH} per call ${Math.round(median(contender.batched))} events/s, live list read p50 ${median(contender.live).toFixed(2)} ms; CPU per event (writers rows) server ${perEvent(contender.serverCpuPerEvent)}, bench ${perEvent(contender.benchCpuPerEvent)}; HOT run updates ${await hotUpdates(contender.url)}`,
      );
    }
    printProfiles();
  } finally {
    for (const contender of contenders) await contender.store.close();
    await server.dispose();
  }
}

await main();
