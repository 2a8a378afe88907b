/**
 * Schedule tick cost (issue 26): what a worker's once-a-second tick costs with 1,000
 * schedules in the store, on SQLite and PostgreSQL, side by side — an idle tick (none due:
 * the common case, paid by every long-lived worker every second), and the ticks that fire
 * all 1,000 at once (a claim per schedule, then a run created for each, as `weft worker`
 * does). Writes `bench/results/schedules.json` and `bench/results/schedules.md`.
 *
 *   node --import tsx bench/run.ts schedules      (BENCH_SCHEDULES=200 for a quick pass)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunService } from '../../src/app/services/run-service.js';
import { ScheduleService } from '../../src/app/services/schedule-service.js';
import { nextDueAfter, parseCron } from '../../src/runs/schedule/schedule-plan.js';
import { PostgresRunStore } from '../../src/runs/store/postgres/postgres-run-store.js';
import type { RunStore } from '../../src/runs/store/run-store.js';
import type { ScheduleStore } from '../../src/runs/store/schedule-store.js';
import { SqliteRunStore } from '../../src/runs/store/sqlite/sqlite-run-store.js';
import { now } from '../lib/measure.js';
import { benchPostgres } from '../lib/postgres.js';
import { formatNumber, machineInfo, markdownTable, writeResults } from '../lib/report.js';
import { summarize } from '../lib/stats.js';

const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 1000);
const IDLE_TICKS = 300;
const CRON = '0 3 * * *';
const T0 = Date.parse('2026-06-01T02:59:00Z');

interface Figures {
  idleP50: number;
  idleP99: number;
  fireAllMs: number;
  ticks: number;
}

async function measure(store: RunStore, schedules: ScheduleStore, dir: string): Promise<Figures> {
  writeFileSync(
    join(dir, 'bench.toml'),
    '[workflow]\nname = "bench"\n\n[run]\nauto_approve = true\n\n[nodes.a]\nkind = "command"\nrun = "true"\n',
  );
  let clock = T0;
  const due = nextDueAfter(parseCron({ cron: CRON, timezone: 'UTC' }), T0)!;
  for (let index = 0; index < SCHEDULES; index += 1) {
    await schedules.putSchedule(
      `s${index}`,
      { workflow: 'bench.toml', cwd: dir, cron: CRON, timezone: 'UTC', inputs: {}, catchUp: 'none', overlap: 'skip', source: 'cli' },
      due,
      clock,
    );
  }
  const runs = new RunService({ store, clock: () => clock, wakeRunners: () => undefined });
  const service = new ScheduleService({ store: schedules, runs: async () => runs, clock: () => clock, workerId: 'bench' });
  const idle: number[] = [];
  for (let tick = 0; tick < IDLE_TICKS; tick += 1) {
    const started = now();
    await service.tick();
    idle.push(now() - started);
  }
  clock = due + 100;
  let created = 0;
  let ticks = 0;
  const started = now();
  while (created < SCHEDULES) {
    const report = await service.tick();
    created += report.created.length;
    ticks += 1;
    if (ticks > SCHEDULES) throw new Error(`only ${created} of ${SCHEDULES} schedules fired`);
  }
  const fireAllMs = now() - started;
  const summary = summarize(idle);
  return { idleP50: summary.p50, idleP99: summary.p99, fireAllMs, ticks };
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const sqliteDir = mkdtempSync(join(tmpdir(), 'weft-bench-schedules-'));
  let sqlite: Figures;
  const sqliteStore = await SqliteRunStore.open({ storageDir: join(sqliteDir, 'home') });
  try {
    sqlite = await measure(sqliteStore, sqliteStore.schedules(), sqliteDir);
  } finally {
    await sqliteStore.close();
    rmSync(sqliteDir, { recursive: true, force: true });
  }
  const server = await benchPostgres();
  const pgDir = mkdtempSync(join(tmpdir(), 'weft-bench-schedules-pg-'));
  let postgres: Figures;
  try {
    const store = await PostgresRunStore.open({ url: await server.createDatabase() });
    try {
      postgres = await measure(store, store.schedules(), pgDir);
    } finally {
      await store.close();
    }
  } finally {
    await server.dispose();
    rmSync(pgDir, { recursive: true, force: true });
  }
  const row = (metric: string, pick: (figures: Figures) => number, unit: string, digits: number) => [
    metric,
    formatNumber(pick(sqlite), digits),
    formatNumber(pick(postgres), digits),
    unit,
  ];
  const machine = machineInfo();
  const markdown = [
    '# Schedule ticks',
    '',
    `${machine.date} · ${machine.cpuModel} × ${machine.cpus} · Node ${machine.node} · load before ${loadBefore.map((value) => value.toFixed(2)).join(' ')} · PostgreSQL: ${server.description}`,
    '',
    markdownTable({
      headers: ['metric', 'SQLite', 'PostgreSQL', 'unit'],
      rows: [
        row(`idle tick, ${SCHEDULES} schedules none due, p50`, (figures) => figures.idleP50, 'ms', 2),
        row(`idle tick, ${SCHEDULES} schedules none due, p99`, (figures) => figures.idleP99, 'ms', 2),
        row(`firing all ${SCHEDULES} at once (claim + run created each)`, (figures) => figures.fireAllMs, 'ms', 0),
        row('… per schedule', (figures) => figures.fireAllMs / SCHEDULES, 'ms', 2),
        row('… ticks it took (200 schedules claimed per tick at most)', (figures) => figures.ticks, 'ticks', 0),
      ],
    }),
  ].join('\n');
  const written = writeResults(
    'schedules',
    { benchmark: 'schedules', machine, loadBefore, loadAfter: loadavg(), schedules: SCHEDULES, sqlite, postgres },
    markdown,
  );
  console.log(markdown);
  console.error(`wrote ${written.json} and ${written.markdown}`);
}

await main();
