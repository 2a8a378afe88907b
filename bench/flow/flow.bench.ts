/**
 * Spend and flow benchmark: what priorities and concurrency keys cost a claim, and what pricing costs a model
 * turn. Claims/s drains a queue of queued runs one claim at a time, on SQLite and
 * PostgreSQL, with every run at priority 0 (the order of before) and with priorities mixed
 * from -5 to 5 (the claim order's index then does the work); and the time `priceTurn` adds
 * to a model turn (the bundled price table, an `[llm.prices]` override), p50/p99. Writes
 * `bench/results/flow.json` and `bench/results/flow.md`.
 *
 *   node --import tsx bench/flow/flow.bench.ts      (BENCH_FLOW_RUNS=500 for a quick pass)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '../../src/runs/store/sqlite/sqlite-run-store.js';
import { PostgresRunStore } from '../../src/runs/store/postgres/postgres-run-store.js';
import type { RunStore } from '../../src/runs/store/run-store.js';
import type { ConcurrencySlot } from '../../src/runs/model/run-concurrency.js';
import { loadPriceTable, priceTurn } from '../../src/agent/pricing/model-pricing.js';
import { mulberry32 } from '../../src/core/seeded-random.js';
import { benchPostgres } from '../lib/postgres.js';
import { now } from '../lib/measure.js';
import { formatNumber, machineInfo, markdownTable, writeResults } from '../lib/report.js';
import { summarize } from '../lib/stats.js';

const RUNS = Number(process.env.BENCH_FLOW_RUNS ?? 2000);
const PRICE_SAMPLES = 20_000;

interface Row {
  metric: string;
  value: number;
  unit: string;
  digits: number;
}

/**
 * Queues `RUNS` runs (priorities from `priority`, concurrency keys from `keys`), then claims
 * them all; claims per second. With keys, every claim counts the holders of the run's key
 * among the live leases — here every run claimed so far (leases of a minute), the worst case.
 */
async function drain(store: RunStore, priority: (index: number) => number, keys?: (index: number) => ConcurrencySlot[]): Promise<number> {
  for (let index = 0; index < RUNS; index += 1) {
    const value = priority(index);
    const concurrency = keys?.(index);
    await store.createRun({
      workflow: 'bench',
      workflowPath: 'bench.toml',
      cwd: '/tmp',
      initialStatus: 'queued',
      ...(value === 0 ? {} : { priority: value }),
      ...(concurrency === undefined ? {} : { concurrency }),
    });
  }
  const started = now();
  let claimed = 0;
  while ((await store.claimRun(`worker-${claimed % 4}`, 60_000)) !== undefined) claimed += 1;
  if (claimed !== RUNS) throw new Error(`claimed ${claimed} of ${RUNS}`);
  return claimed / ((now() - started) / 1000);
}

interface Claims {
  off: number;
  on: number;
  /** Every run carries a key (one of 50) that always has room. */
  keyed: number;
}

async function claims(open: () => Promise<RunStore>): Promise<Claims> {
  const random = mulberry32(42);
  const off = await open();
  const on = await open();
  const keyed = await open();
  try {
    return {
      off: await drain(off, () => 0),
      on: await drain(on, () => Math.floor(random() * 11) - 5),
      keyed: await drain(
        keyed,
        () => 0,
        (index) => [{ key: `repo:${index % 50}`, limit: RUNS }],
      ),
    };
  } finally {
    await Promise.all([off.close(), on.close(), keyed.close()]);
  }
}

async function pricing(): Promise<Row[]> {
  await loadPriceTable();
  const usage = { inputTokens: 12_000, outputTokens: 800, totalTokens: 12_800, cachedInputTokens: 9_000 };
  const anthropic = { name: 'anthropic', api: 'anthropic-messages' as const };
  const time = async (call: () => Promise<unknown>) => {
    const samples: number[] = [];
    for (let index = 0; index < PRICE_SAMPLES; index += 1) {
      const started = now();
      await call();
      samples.push((now() - started) * 1000);
    }
    return summarize(samples);
  };
  const table = await time(() => priceTurn(anthropic, 'claude-sonnet-4-5', usage, {}));
  const override = await time(() =>
    priceTurn(anthropic, 'claude-private', usage, { 'anthropic:*': { inputPerMtok: 3, outputPerMtok: 15 } }),
  );
  return [
    { metric: 'pricing a turn from the bundled table, p50', value: table.p50, unit: 'µs', digits: 1 },
    { metric: 'pricing a turn from the bundled table, p99', value: table.p99, unit: 'µs', digits: 1 },
    { metric: 'pricing a turn from an [llm.prices] pattern, p50', value: override.p50, unit: 'µs', digits: 1 },
    { metric: 'pricing a turn from an [llm.prices] pattern, p99', value: override.p99, unit: 'µs', digits: 1 },
  ];
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const dirs: string[] = [];
  const sqlite = await claims(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-bench-flow-'));
    dirs.push(dir);
    return SqliteRunStore.open({ storageDir: dir });
  });
  dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  const server = await benchPostgres();
  let postgres: Claims;
  try {
    postgres = await claims(async () => PostgresRunStore.open({ url: await server.createDatabase() }));
  } finally {
    await server.dispose();
  }
  const rows: Row[] = [
    { metric: `SQLite: claims/s draining ${RUNS} queued runs, all priority 0`, value: sqlite.off, unit: 'claims/s', digits: 0 },
    { metric: `SQLite: the same, priorities mixed -5…5`, value: sqlite.on, unit: 'claims/s', digits: 0 },
    {
      metric: `SQLite: the same, priority 0, every run with a concurrency key (50 keys, always room; leases held)`,
      value: sqlite.keyed,
      unit: 'claims/s',
      digits: 0,
    },
    { metric: `PostgreSQL: claims/s draining ${RUNS} queued runs, all priority 0`, value: postgres.off, unit: 'claims/s', digits: 0 },
    { metric: `PostgreSQL: the same, priorities mixed -5…5`, value: postgres.on, unit: 'claims/s', digits: 0 },
    {
      metric: `PostgreSQL: the same, priority 0, every run with a concurrency key (50 keys, always room; leases held)`,
      value: postgres.keyed,
      unit: 'claims/s',
      digits: 0,
    },
    ...(await pricing()),
  ];
  const machine = machineInfo();
  const markdown = [
    '# Spend and flow',
    '',
    `${machine.date} · ${machine.cpuModel} × ${machine.cpus} · Node ${machine.node} · load before ${loadBefore.map((value) => value.toFixed(2)).join(' ')}`,
    '',
    markdownTable({
      headers: ['metric', 'value', 'unit'],
      rows: rows.map((row) => [row.metric, formatNumber(row.value, row.digits), row.unit]),
    }),
    '',
    'With keys, each claim counts the holders of its key among the live leases; in this drain every run claimed so far still holds its lease (the worst case: the live set grows to all the runs). Not measured yet: model limits (not built).',
  ].join('\n');
  const written = writeResults('flow', { benchmark: 'flow', machine, loadBefore, loadAfter: loadavg(), runs: RUNS, rows }, markdown);
  console.log(markdown);
  console.error(`wrote ${written.json} and ${written.markdown}`);
}

await main();
