/**
 * `weft mcp start` benchmark (spec §8):
 *
 * - cold start: spawn to the first `tools/list` answer over stdio, with the bare `node`
 *   boot beside it for scale;
 * - tool calls, side by side: with 100k runs and 1M events stored, `weft_run_get` and a
 *   filtered `weft_run_search` through the official SDK v2 client over stdio and over HTTP,
 *   and the same client calling a trivial SDK server over HTTP that answers run_get's
 *   bytes (the floor of the SDK's HTTP path) — p50/p99 of sequential calls, the client's
 *   own time included, plus client and server CPU per call; the three take turns in rounds;
 * - gather wake-up: from a run ending in another process to `weft_run_gather` answering,
 *   over stdio and HTTP (gather-wake.ts).
 *
 * Writes `bench/results/mcp-server.json` and `.md`.
 *
 *   node --import tsx bench/mcp-server/mcp-server.bench.ts            (after `npm run build`)
 *   node --import tsx bench/mcp-server/mcp-server.bench.ts --quick    (tiny counts, numbers mean nothing)
 *   WEFT_BENCH_BIN=/other/checkout/bin/weft.js node --import tsx bench/mcp-server/mcp-server.bench.ts
 *                                                                     (another build, e.g. the previous commit)
 *
 * The 100k-run database is generated once with the store's bulk import and kept in
 * node_modules/.cache/weft-bench/ for later runs.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { SqliteRunStore } from '../../src/runs/store/sqlite/sqlite-run-store.js';
import { now, processCpuMs } from '../lib/measure.js';
import { bigStore } from '../lib/big-store.js';
import { formatNumber, machineInfo, markdownTable, writeResults } from '../lib/report.js';
import { summarize, type Summary } from '../lib/stats.js';
import { mulberry32 } from '../../src/core/seeded-random.js';
import { DAY_MS, T0, TEAMS } from '../store/generate-runs.js';
import { gatherWakeMs, PHASE_MS } from './gather-wake.js';
import { bareOverHttp, weftOverHttp, weftOverStdio, WEFT_BIN, type Connected } from './servers.js';

const QUICK = process.argv.includes('--quick');
const COLD_SPAWNS = QUICK ? 3 : 15;
const RUNS = QUICK ? 2_000 : Number(process.env.BENCH_RUNS ?? 100_000);
const EVENTS_PER_RUN = 10;
/** Per target, over all rounds. */
const GET_CALLS = QUICK ? 100 : 2_000;
const SEARCH_CALLS = QUICK ? 50 : 500;
/** The targets take turns this many times, so drift on the machine hits each alike. */
const ROUNDS = QUICK ? 2 : 4;
/** Per transport. */
const GATHER_SAMPLES = QUICK ? 4 : 60;

const line = (message: object) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;

/** Spawn → `initialize` → `tools/list` answered, in ms; the server is then closed (stdin end). */
function coldStart(storageDir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn(process.execPath, [WEFT_BIN, '--storage-dir', storageDir, 'mcp', 'start'], { stdio: ['pipe', 'pipe', 'ignore'] });
    let buffer = '';
    let elapsed: number | undefined;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, end)) as { id?: number };
        buffer = buffer.slice(end + 1);
        if (message.id === 1) child.stdin.write(line({ method: 'notifications/initialized' }) + line({ id: 2, method: 'tools/list' }));
        if (message.id === 2 && elapsed === undefined) {
          elapsed = now() - started;
          child.stdin.end();
        }
      }
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      elapsed === undefined ? reject(new Error(`weft mcp start exited with ${code} before answering tools/list`)) : resolve(elapsed),
    );
    child.stdin.write(
      line({
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
      }),
    );
  });
}

/** Spawn → exit of `node -e 0`: the floor any Node CLI starts from. */
function nodeBoot(): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(now() - started));
  });
}

type TargetName = 'stdio' | 'http' | 'bare';

interface Target {
  name: TargetName;
  connected: Connected;
  /** One `weft_run_get` (the bare server: its `get`, answering the same bytes). */
  get: () => Promise<void>;
  /** One filtered `weft_run_search`, with the number of runs found; weft only. */
  search?: () => Promise<number>;
}

interface CallTimes {
  get: Summary;
  /** Client CPU (this process, user + system) per get call, ms. */
  clientCpuPerGetMs: number;
  /** The server process's CPU per get call, ms; null without /proc. */
  serverCpuPerGetMs: number | null;
  search: Summary | null;
  searchPage: number | null;
}

function checked(result: CallToolResult): CallToolResult {
  if (result.isError) throw new Error(JSON.stringify(result.content));
  return result;
}

function weftTarget(name: 'stdio' | 'http', connected: Connected, ids: readonly string[]): Target {
  const random = mulberry32(11);
  const pick = () => ids[Math.floor(random() * ids.length)] as string;
  const statuses = [['failed'], ['succeeded', 'failed'], ['running', 'blocked', 'paused'], ['cancelled']];
  return {
    name,
    connected,
    get: async () => void checked(await connected.client.callTool({ name: 'weft_run_get', arguments: { run_id: pick() } })),
    search: async () => {
      const from = T0 + Math.floor(random() * 23) * DAY_MS;
      const result = checked(
        await connected.client.callTool({
          name: 'weft_run_search',
          arguments: {
            status: statuses[Math.floor(random() * statuses.length)],
            labels: { team: TEAMS[Math.floor(random() * TEAMS.length)] },
            created_after: new Date(from).toISOString(),
            created_before: new Date(from + 7 * DAY_MS).toISOString(),
            limit: 20,
          },
        }),
      );
      return (result.structuredContent as { runs: unknown[] }).runs.length;
    },
  };
}

function bareTarget(connected: Connected): Target {
  return { name: 'bare', connected, get: async () => void checked(await connected.client.callTool({ name: 'get', arguments: {} })) };
}

/** The targets take turns, round by round, each round in a rotated order. */
async function measureCalls(targets: readonly Target[]): Promise<Record<TargetName, CallTimes>> {
  const gets = new Map<TargetName, number[]>();
  const searches = new Map<TargetName, number[]>();
  const cpu = new Map<TargetName, { client: number; server: number | null }>();
  for (const target of targets) {
    for (let index = 0; index < Math.min(200, GET_CALLS); index += 1) await target.get();
    if (target.search) for (let index = 0; index < Math.min(50, SEARCH_CALLS); index += 1) await target.search();
    gets.set(target.name, []);
    searches.set(target.name, []);
    cpu.set(target.name, { client: 0, server: 0 });
  }
  const found = new Map<TargetName, number>();
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let turn = 0; turn < targets.length; turn += 1) {
      const target = targets[(round + turn) % targets.length] as Target;
      const spent = cpu.get(target.name) as { client: number; server: number | null };
      const clientBefore = process.cpuUsage();
      const serverBefore = processCpuMs(target.connected.pid);
      for (let index = 0; index < GET_CALLS / ROUNDS; index += 1) {
        const started = now();
        await target.get();
        gets.get(target.name)?.push(now() - started);
      }
      const serverAfter = processCpuMs(target.connected.pid);
      const client = process.cpuUsage(clientBefore);
      spent.client += (client.user + client.system) / 1000;
      spent.server =
        spent.server === null || serverBefore === undefined || serverAfter === undefined ? null : spent.server + serverAfter - serverBefore;
      if (!target.search) continue;
      for (let index = 0; index < SEARCH_CALLS / ROUNDS; index += 1) {
        const started = now();
        found.set(target.name, (found.get(target.name) ?? 0) + (await target.search()));
        searches.get(target.name)?.push(now() - started);
      }
    }
  }
  const times = {} as Record<TargetName, CallTimes>;
  for (const target of targets) {
    const spent = cpu.get(target.name) as { client: number; server: number | null };
    const searched = searches.get(target.name) ?? [];
    times[target.name] = {
      get: summarize(gets.get(target.name) ?? []),
      clientCpuPerGetMs: spent.client / GET_CALLS,
      serverCpuPerGetMs: spent.server === null ? null : spent.server / GET_CALLS,
      search: searched.length > 0 ? summarize(searched) : null,
      searchPage: searched.length > 0 ? (found.get(target.name) ?? 0) / searched.length : null,
    };
  }
  return times;
}

async function callsSideBySide(dir: string, ids: string[]): Promise<Record<TargetName, CallTimes>> {
  const stdio = await weftOverStdio(dir);
  const opened: Connected[] = [stdio];
  try {
    const http = await weftOverHttp(dir);
    opened.push(http);
    // The baseline answers exactly what weft_run_get answers for a real run.
    const sample = checked(await stdio.client.callTool({ name: 'weft_run_get', arguments: { run_id: ids[0] } }));
    const bare = await bareOverHttp({ content: sample.content, structuredContent: sample.structuredContent });
    opened.push(bare);
    return await measureCalls([weftTarget('stdio', stdio, ids), weftTarget('http', http, ids), bareTarget(bare)]);
  } finally {
    for (const connected of opened) await connected.close();
  }
}

interface GatherTimes {
  stdio: Summary;
  http: Summary;
}

/** A fresh store for the gather samples (the 100k-run one stays untouched); stdio and HTTP take turns. */
async function gatherSideBySide(): Promise<GatherTimes> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-gather-'));
  const runner = await SqliteRunStore.open({ storageDir: dir });
  const opened: Connected[] = [];
  try {
    const stdio = await weftOverStdio(dir);
    opened.push(stdio);
    const http = await weftOverHttp(dir);
    opened.push(http);
    const random = mulberry32(5);
    const samples: Record<'stdio' | 'http', number[]> = { stdio: [], http: [] };
    for (const connected of [stdio, http]) for (let warm = 0; warm < 2; warm += 1) await gatherWakeMs(runner, connected.client, random);
    for (let index = 0; index < GATHER_SAMPLES; index += 1) {
      samples.stdio.push(await gatherWakeMs(runner, stdio.client, random));
      samples.http.push(await gatherWakeMs(runner, http.client, random));
    }
    return { stdio: summarize(samples.stdio), http: summarize(samples.http) };
  } finally {
    for (const connected of opened) await connected.close();
    await runner.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (!existsSync(join(dirname(WEFT_BIN), '../dist/cli.js')))
    throw new Error(`Build first: 'npm run build' (the benchmark starts ${WEFT_BIN}).`);
  const loadBefore = loadavg()[0] ?? 0;
  const empty = mkdtempSync(join(tmpdir(), 'weft-bench-mcp-'));
  try {
    await coldStart(empty);
    const cold: number[] = [];
    const boot: number[] = [];
    for (let index = 0; index < COLD_SPAWNS; index += 1) {
      boot.push(await nodeBoot());
      cold.push(await coldStart(empty));
    }
    const coldSummary = summarize(cold);
    const bootSummary = summarize(boot);
    console.error(`cold start to tools/list: median ${coldSummary.p50.toFixed(0)} ms (node boot ${bootSummary.p50.toFixed(0)} ms)`);

    const { dir, ids, generatedSeconds } = await bigStore('mcp-server', RUNS, EVENTS_PER_RUN);
    const calls = await callsSideBySide(dir, ids);
    console.error(
      `weft_run_get p99: stdio ${calls.stdio.get.p99.toFixed(1)} ms, HTTP ${calls.http.get.p99.toFixed(1)} ms (bare SDK server ${calls.bare.get.p99.toFixed(1)} ms)`,
    );
    const gather = await gatherSideBySide();
    console.error(`gather wake-up median: stdio ${gather.stdio.p50.toFixed(1)} ms, HTTP ${gather.http.p50.toFixed(1)} ms`);
    const loadAfter = loadavg()[0] ?? 0;
    report({ weftBin: WEFT_BIN, cold: coldSummary, boot: bootSummary, calls, gather, generatedSeconds, loadBefore, loadAfter });
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
}

interface Results {
  weftBin: string;
  cold: Summary;
  boot: Summary;
  calls: Record<TargetName, CallTimes>;
  gather: GatherTimes;
  generatedSeconds: number | null;
  loadBefore: number;
  loadAfter: number;
}

function report(results: Results): void {
  const machine = machineInfo();
  const ms = (value: number | null | undefined) =>
    value === null || value === undefined ? '–' : `${formatNumber(value, value < 10 ? 2 : 0)} ms`;
  const check = (value: number, limit: number) => (value < limit ? 'yes' : '**no**');
  const { stdio, http, bare } = results.calls;
  const startup = markdownTable({
    headers: ['metric', 'value', 'target', 'pass'],
    rows: [
      [`cold start → first tools/list (stdio), median of ${COLD_SPAWNS}`, ms(results.cold.p50), '< 400 ms', check(results.cold.p50, 400)],
      ['cold start → first tools/list (stdio), p99', ms(results.cold.p99), '', ''],
      ['`node -e 0` boot, median (the floor)', ms(results.boot.p50), '', ''],
    ],
    align: ['left', 'right', 'left', 'left'],
  });
  const getP99Pass = check(Math.max(stdio.get.p99, http.get.p99), 10);
  const calls = markdownTable({
    headers: ['metric', 'weft, stdio', 'weft, HTTP', 'bare SDK server, HTTP', 'target', 'pass'],
    rows: [
      [`weft_run_get p50 (${formatNumber(GET_CALLS)} calls each)`, ms(stdio.get.p50), ms(http.get.p50), ms(bare.get.p50), '', ''],
      ['weft_run_get p99', ms(stdio.get.p99), ms(http.get.p99), ms(bare.get.p99), '< 10 ms', getP99Pass],
      ['client CPU per call (the SDK client)', ms(stdio.clientCpuPerGetMs), ms(http.clientCpuPerGetMs), ms(bare.clientCpuPerGetMs), '', ''],
      ['server CPU per call', ms(stdio.serverCpuPerGetMs), ms(http.serverCpuPerGetMs), ms(bare.serverCpuPerGetMs), '', ''],
      [
        `weft_run_search status + label + created range p50 (${formatNumber(SEARCH_CALLS)} calls each)`,
        ms(stdio.search?.p50),
        ms(http.search?.p50),
        '',
        '',
        '',
      ],
      ['weft_run_search p99', ms(stdio.search?.p99), ms(http.search?.p99), '', '', ''],
    ],
    align: ['left', 'right', 'right', 'right', 'left', 'left'],
  });
  const gather = markdownTable({
    headers: ['run ends in another process → weft_run_gather answers', 'stdio', 'HTTP'],
    rows: [
      [`median (${GATHER_SAMPLES} runs each)`, ms(results.gather.stdio.p50), ms(results.gather.http.p50)],
      ['p99', ms(results.gather.stdio.p99), ms(results.gather.http.p99)],
      ['mean', ms(results.gather.stdio.mean), ms(results.gather.http.mean)],
    ],
  });
  const markdown = [
    '# MCP server benchmark (`weft mcp start`)',
    '',
    `${formatNumber(RUNS)} runs and ${formatNumber(RUNS * EVENTS_PER_RUN)} events stored; Node ${machine.node}, ${machine.cpus} × ${machine.cpuModel}, ${machine.date}; load average ${results.loadBefore.toFixed(2)} before, ${results.loadAfter.toFixed(2)} after.${process.env.WEFT_BENCH_BIN ? ` weft under test: \`${results.weftBin}\`.` : ''}${QUICK ? ' **Quick run: the numbers mean nothing.**' : ''}`,
    '',
    startup,
    '',
    'Cold start: spawning `node bin/weft.js mcp start` until the `tools/list` answer arrives (raw JSON-RPC over stdio, nothing loaded in the',
    'child beforehand).',
    '',
    calls,
    '',
    'Tool calls: the official SDK v2 `Client`, one call at a time, round trip as the client sees it — JSON-RPC, schema validation of',
    'arguments and structured output on both sides, the store read. The three columns take turns in rounds. **bare SDK server** is',
    "`bare-http-server.mjs`: the SDK's own Node HTTP transport (sessions, SSE answers) with one tool that returns weft_run_get's answer",
    'as a constant — no auth, no store — so its row is the floor of the SDK client over HTTP. CPU per call: `process.cpuUsage()` of this',
    "(client) process, and `/proc/<pid>/stat` of the server (10 ms ticks, summed over all calls). The spec's store targets (run_get",
    'p99 < 5 ms, filtered run_search p99 < 50 ms) are for the store itself (bench/results/store.md); these rows add the MCP round trip.',
    '',
    gather,
    '',
    `Gather wake-up: this process plays the runner of each run (it holds the lease, so the server starts no runner), waits for the`,
    `server's first progress notification (it is waiting), lets 0–${PHASE_MS} ms pass at random, commits the run's end, and times from`,
    'that commit to the answer in the client. Stdio and HTTP take turns.',
    '',
  ].join('\n');
  const written = writeResults(
    'mcp-server',
    {
      benchmark: 'mcp-server',
      machine,
      quick: QUICK,
      runs: RUNS,
      events: RUNS * EVENTS_PER_RUN,
      coldSpawns: COLD_SPAWNS,
      getCalls: GET_CALLS,
      searchCalls: SEARCH_CALLS,
      rounds: ROUNDS,
      gatherSamples: GATHER_SAMPLES,
      ...results,
    },
    markdown,
  );
  console.log(markdown);
  console.error(`wrote ${written.json} and ${written.markdown}`);
}

await main();
