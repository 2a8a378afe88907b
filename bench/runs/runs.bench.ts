/**
 * Run throughput (issues 4, 14, 17): a 3-stage workflow of `true` commands, executed by one runner
 * with `maxParallel` 8 on the embedded SQLite store, the way `weft worker` executes runs.
 * Measures runs/s end to end (create → succeeded) and per-run latency p50/p99 for 8
 * concurrent runs at a time. Issue 17 adds the engine alone: a workflow whose stages spawn
 * nothing (`tool` stages calling the in-process `read_file` on a tiny file, and `branch`
 * stages), once with one run at a time (per-stage latency) and once 8 at a time.
 * Then the command queue drained by 1, 2 and 4 `weft worker` processes, on SQLite and on
 * PostgreSQL (worker-processes.ts; PostgreSQL as in bench/lib/postgres.ts).
 * The engine-alone rows run on SQLite and on PostgreSQL side by side.
 * Writes `bench/results/runs.json` and `bench/results/runs.md`. Needs `npm run build` first.
 *
 *   node --import tsx bench/runs/runs.bench.ts      (BENCH_RUN_COUNT=40 for a quick pass)
 *   node --import tsx bench/runs/runs.bench.ts --engine-only   (the engine-alone rows only; prints, writes nothing)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { newId } from '../../src/core/ids.js';
import type { RunStore } from '../../src/runs/store/run-store.js';
import { silentLogger } from '../../src/core/logger.js';
import type { RunToolboxFactory } from '../../src/runs/engine/stage-context.js';
import { ApprovalPolicy } from '../../src/tools/approval-policy.js';
import { fileArtifactSink } from '../../src/tools/artifact-sink.js';
import { builtinTools } from '../../src/tools/builtin/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { ToolExecutor } from '../../src/tools/tool-executor.js';
import { Worker } from '../../src/runs/engine/worker.js';
import { RunService } from '../../src/app/services/run-service.js';
import { PostgresRunStore } from '../../src/runs/store/postgres/postgres-run-store.js';
import { SqliteRunStore } from '../../src/runs/store/sqlite/sqlite-run-store.js';
import { benchPostgres, type BenchPostgres } from '../lib/postgres.js';
import { now } from '../lib/measure.js';
import { formatNumber, machineInfo, markdownTable, writeResults } from '../lib/report.js';
import { summarize } from '../lib/stats.js';
import { drain, type DrainResult } from './worker-processes.js';

const RUN_COUNT = Number(process.env.BENCH_RUN_COUNT ?? 200);
const PARALLEL = 8;
const DRAIN_COUNT = Number(process.env.BENCH_DRAIN_COUNT ?? 200);
const WORKER_COUNTS = [1, 2, 4];

const COMMAND_WORKFLOW = `
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

/** Pairs of a `tool` stage reading a tiny file and a `branch` stage routing on its status, then one last read. */
const SPAWNLESS_PAIRS = 5;
const SPAWNLESS_STAGES = SPAWNLESS_PAIRS * 2 + 1;

function spawnlessWorkflow(): string {
  const read = (name: string, next?: string) =>
    `[nodes.${name}]\nkind = "tool"\ntool = "read_file"\nargs = { file_path = "tiny.txt" }${next ? `\nnext = "${next}"` : ''}`;
  const nodes: string[] = [];
  for (let i = 0; i < SPAWNLESS_PAIRS; i += 1) {
    nodes.push(read(`read${i}`, `route${i}`));
    nodes.push(
      `[nodes.route${i}]\nkind = "branch"\n[[nodes.route${i}.edges]]\nto = "${i + 1 < SPAWNLESS_PAIRS ? `read${i + 1}` : 'last'}"\nwhen = 'stages.read${i}.status == "succeeded"'`,
    );
  }
  nodes.push(read('last'));
  return `[workflow]\nstart = "read0"\n\n${nodes.join('\n\n')}\n`;
}

// Command stages never touch tools; a toolbox that is never built keeps that row about spawns.
const noToolbox: RunToolboxFactory = () => Promise.reject(new Error('the command rows have no tool stages'));

/** Built-ins only, no MCP servers: the tool stages measure the engine, not a child process. */
function builtinToolbox(storageDir: string): RunToolboxFactory {
  return (run) => {
    const registry = new ToolRegistry();
    for (const tool of builtinTools()) registry.register(tool);
    const policy = new ApprovalPolicy([]);
    const executor = new ToolExecutor({
      registry,
      policy,
      approvalMode: { interactive: false, autoApprove: true },
      artifacts: fileArtifactSink(join(storageDir, 'artifacts', run.id)),
      logger: silentLogger,
    });
    return Promise.resolve({ registry, executor, close: () => Promise.resolve() });
  };
}

type StoreKind = 'SQLite' | 'PostgreSQL';

interface Scenario {
  label: string;
  store: StoreKind;
  workflowText: string;
  stagesPerRun: number;
  parallel: number;
  runCount: number;
  toolbox: (storageDir: string) => RunToolboxFactory;
}

interface ScenarioResult {
  scenario: Scenario;
  elapsedMs: number;
  runsPerSecond: number;
  stagesPerSecond: number;
  /** This process's CPU (engine, store client, tools; not a PostgreSQL server's) per stage: steadier than wall time on a loaded machine. */
  cpuMsPerStage: number;
  latency: ReturnType<typeof summarize>;
}

async function runScenario(scenario: Scenario, postgres: () => Promise<BenchPostgres>): Promise<ScenarioResult> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-runs-'));
  try {
    const workflow = join(dir, 'workflow.toml');
    writeFileSync(workflow, scenario.workflowText);
    writeFileSync(join(dir, 'tiny.txt'), 'tiny\n');
    const storageDir = join(dir, 'home');
    const store: RunStore =
      scenario.store === 'SQLite'
        ? await SqliteRunStore.open({ storageDir })
        : await PostgresRunStore.open({ url: await (await postgres()).createDatabase() });
    const worker = new Worker({
      store,
      workerId: `bench-${newId()}`,
      logger: silentLogger,
      clock: Date.now,
      newId,
      toolboxFactory: scenario.toolbox(storageDir),
      leaseMs: 30_000,
      heartbeatMs: 10_000,
      maxParallel: scenario.parallel,
      pollMs: 5,
    });
    const runs = new RunService({ store, clock: Date.now, wakeRunners: () => worker.wake() });
    const stop = new AbortController();
    const working = worker.run(stop.signal);

    const latencies: number[] = [];
    let next = 0;
    const cpu = process.cpuUsage();
    const started = now();
    // Keep `parallel` runs in flight: each lane creates a run, waits for it, and takes the next.
    await Promise.all(
      Array.from({ length: scenario.parallel }, async () => {
        while (next < scenario.runCount) {
          next += 1;
          const begin = now();
          const run = await runs.create({ workflow, cwd: dir, autoApprove: true });
          const {
            runs: [current],
            timedOut,
          } = await runs.wait([run.id], 60_000);
          if (timedOut || current?.status !== 'succeeded')
            throw new Error(`run ${run.id} ${current?.status ?? 'missing'}: ${current?.reason ?? ''}`);
          latencies.push(now() - begin);
        }
      }),
    );
    const elapsedMs = now() - started;
    const used = process.cpuUsage(cpu);
    stop.abort();
    await working;
    await store.close();
    const runsPerSecond = (scenario.runCount / elapsedMs) * 1000;
    const cpuMsPerStage = (used.user + used.system) / 1000 / (scenario.runCount * scenario.stagesPerRun);
    return {
      scenario,
      elapsedMs,
      runsPerSecond,
      stagesPerSecond: runsPerSecond * scenario.stagesPerRun,
      cpuMsPerStage,
      latency: summarize(latencies),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The command workflow's queue drained by worker processes, in a directory of its own. */
async function drainCommandQueue(postgres: () => Promise<BenchPostgres>): Promise<Drains> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-drain-'));
  try {
    const workflow = join(dir, 'three.toml');
    writeFileSync(workflow, COMMAND_WORKFLOW);
    return await drainAll(dir, workflow, postgres);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Drains {
  server: string;
  sqlite: DrainResult[];
  postgres: DrainResult[];
  /** PostgreSQL again, the clock started once every worker listens (their start left out). */
  postgresStarted: DrainResult[];
}

/** Resolves once `workers` worker processes (and the bench's own store) listen for change notices on the database `url` names. */
async function workersListening(url: string, workers: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const listening =
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'weft-notices' AND datname = current_database()";
    while ((await client.query<{ n: number }>(listening)).rows[0]!.n < workers + 1) await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    await client.end();
  }
}

async function drainAll(dir: string, workflow: string, postgres: () => Promise<BenchPostgres>): Promise<Drains> {
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
  const server = await postgres();
  const pgDrain = async (workers: number, waitForStart: boolean): Promise<DrainResult> => {
    const url = await server.createDatabase();
    const store = await PostgresRunStore.open({ url });
    try {
      const ready = waitForStart ? (count: number) => workersListening(url, count) : undefined;
      return await drain({
        store,
        workflow,
        dir,
        count: DRAIN_COUNT,
        workers,
        home: (index) => join(dir, `pg-${workers}-${waitForStart}-host-${index}`),
        env: { WEFT_DATABASE_URL: url },
        ready,
      });
    } finally {
      await store.close();
    }
  };
  const pgResults: DrainResult[] = [];
  const pgStarted: DrainResult[] = [];
  for (const workers of WORKER_COUNTS) {
    pgResults.push(await pgDrain(workers, false));
    pgStarted.push(await pgDrain(workers, true));
  }
  return { server: `PostgreSQL: ${server.description}`, sqlite, postgres: pgResults, postgresStarted: pgStarted };
}

function engineScenarios(): Scenario[] {
  const spawnless = spawnlessWorkflow();
  const stages = `${SPAWNLESS_PAIRS + 1} tool + ${SPAWNLESS_PAIRS} branch stages`;
  return (['SQLite', 'PostgreSQL'] as const).flatMap((store) => [
    {
      label: `${stages}, 1 at a time`,
      store,
      workflowText: spawnless,
      stagesPerRun: SPAWNLESS_STAGES,
      parallel: 1,
      runCount: RUN_COUNT,
      toolbox: builtinToolbox,
    },
    {
      label: `${stages}, 8 at a time`,
      store,
      workflowText: spawnless,
      stagesPerRun: SPAWNLESS_STAGES,
      parallel: PARALLEL,
      runCount: RUN_COUNT,
      toolbox: builtinToolbox,
    },
  ]);
}

const scenarioRow = ({ scenario, runsPerSecond, stagesPerSecond, cpuMsPerStage, latency }: ScenarioResult): string[] => [
  scenario.label,
  scenario.store,
  formatNumber(scenario.runCount),
  formatNumber(runsPerSecond, 1),
  formatNumber(stagesPerSecond, 1),
  formatNumber(latency.p50, 1),
  formatNumber(latency.p99, 1),
  formatNumber(latency.p50 / scenario.stagesPerRun, 2),
  formatNumber(cpuMsPerStage, 2),
];
const SCENARIO_HEADERS = [
  'workflow',
  'store',
  'runs',
  'runs/s',
  'stages/s',
  'run p50 (ms)',
  'run p99 (ms)',
  'per stage p50 (ms)',
  'CPU per stage (ms)',
];

/** The PostgreSQL server, started on first use and shared by every row. */
function lazyPostgres(): { get: () => Promise<BenchPostgres>; dispose: () => Promise<void> } {
  let server: Promise<BenchPostgres> | undefined;
  return {
    get: () => (server ??= benchPostgres()),
    dispose: async () => {
      if (server) await (await server).dispose();
    },
  };
}

async function main(): Promise<void> {
  const postgres = lazyPostgres();
  try {
    if (process.argv.includes('--engine-only')) {
      const before = loadavg()[0] ?? 0;
      const results: ScenarioResult[] = [];
      for (const scenario of engineScenarios()) results.push(await runScenario(scenario, postgres.get));
      const after = loadavg()[0] ?? 0;
      process.stdout.write(
        `load average ${before.toFixed(1)} before, ${after.toFixed(1)} after\n${markdownTable({ headers: SCENARIO_HEADERS, rows: results.map(scenarioRow) })}\n`,
      );
      return;
    }
    await fullRun(postgres.get);
  } finally {
    await postgres.dispose();
  }
}

async function fullRun(postgres: () => Promise<BenchPostgres>): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const scenarios: Scenario[] = [
    {
      label: '3 `true` command stages, 8 at a time',
      store: 'SQLite',
      workflowText: COMMAND_WORKFLOW,
      stagesPerRun: 3,
      parallel: PARALLEL,
      runCount: RUN_COUNT,
      toolbox: () => noToolbox,
    },
    ...engineScenarios(),
  ];
  const results: ScenarioResult[] = [];
  for (const scenario of scenarios) results.push(await runScenario(scenario, postgres));
  const drains = await drainCommandQueue(postgres);

  const rows = results.map(scenarioRow);
  const info = machineInfo();
  const markdown = [
    '# Run throughput — one runner',
    '',
    `${info.date} · Node ${info.node} · ${info.platform} · ${info.cpus} × ${info.cpuModel} · load average ${loadBefore.toFixed(1)} before, ${(loadavg()[0] ?? 0).toFixed(1)} after (1 min)`,
    '',
    `One runner (Worker) on the embedded SQLite store, and for the engine-alone rows on PostgreSQL too (${drains.server}). ` +
      'Command stages spawn `/bin/bash -c true` in their own process group; the spawnless rows run `tool` stages calling the in-process `read_file` on a 5-byte file and `branch` stages, so they measure the engine alone. Every stage records its events (group-committed) before the next starts. Latency is create → succeeded as `RunService.wait` (woken by change notices) sees it; per stage = run p50 ÷ stages per run (with one run at a time, the engine cost of a stage including its durable events).',
    '',
    markdownTable({ headers: SCENARIO_HEADERS, rows }),
    '',
    `## Draining ${DRAIN_COUNT} queued runs (3 command stages) with worker processes`,
    '',
    `Each \`weft worker\` process runs up to 8 runs at once. ${drains.server}; it runs on the same machine and shares its cores with the workers and the stages' shells. ` +
      'The clock starts as the runs are queued, with the workers just spawned, so it includes their start (until every worker listened: 0.6–1.4 s for one, 2.3–3.5 s for four, at load 6–9 on 2 cores); the last column starts it once every worker listens for change notices.',
    '',
    markdownTable({
      headers: ['worker processes', 'SQLite runs/s', 'PostgreSQL runs/s', 'PostgreSQL runs/s, workers started first'],
      rows: drains.sqlite.map((result, index) => [
        String(result.workers),
        formatNumber(result.runsPerSecond, 1),
        formatNumber(drains.postgres[index]?.runsPerSecond, 1),
        formatNumber(drains.postgresStarted[index]?.runsPerSecond, 1),
      ]),
    }),
    '',
  ].join('\n');
  writeResults(
    'runs',
    {
      machine: info,
      drains,
      scenarios: results.map(({ scenario, elapsedMs, runsPerSecond, stagesPerSecond, cpuMsPerStage, latency }) => ({
        label: scenario.label,
        store: scenario.store,
        runs: scenario.runCount,
        parallel: scenario.parallel,
        stagesPerRun: scenario.stagesPerRun,
        elapsedMs,
        runsPerSecond,
        stagesPerSecond,
        cpuMsPerStage,
        latency,
      })),
    },
    markdown,
  );
  process.stdout.write(`${markdown}\n`);
}

await main();
