/**
 * `weft mcp start` benchmark (spec §8): cold start — spawn to the first `tools/list`
 * answer over stdio, with the bare `node` boot beside it for scale — and, with 100k runs
 * and 1M events stored, `weft_run_get` and a filtered `weft_run_search` through the
 * official SDK v2 client over stdio and over HTTP (p50/p99 of sequential calls, the
 * client's own time included). Writes `bench/results/mcp-server.json` and `.md`.
 *
 *   node --import tsx bench/mcp-server/mcp-server.bench.ts            (after `npm run build`)
 *   node --import tsx bench/mcp-server/mcp-server.bench.ts --quick    (tiny counts, numbers mean nothing)
 *
 * The 100k-run database is generated once with the store's bulk import and kept in
 * node_modules/.cache/weft-bench/ for later runs.
 */
import { spawn } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { monotonicFactory } from 'ulid';
import { SqliteRunStore } from '../../src/runs/store/sqlite/sqlite-run-store.js';
import { now } from '../lib/measure.js';
import { CACHE_DIR, REPO_ROOT } from '../lib/paths.js';
import { formatNumber, machineInfo, markdownTable, writeResults } from '../lib/report.js';
import { summarize, type Summary } from '../lib/stats.js';
import { DAY_MS, generateRuns, mulberry32, T0, TEAMS } from '../store/generate-runs.js';

const QUICK = process.argv.includes('--quick');
const COLD_SPAWNS = QUICK ? 3 : 15;
const RUNS = QUICK ? 2_000 : Number(process.env.BENCH_RUNS ?? 100_000);
const EVENTS_PER_RUN = 10;
const GET_CALLS = QUICK ? 100 : 2_000;
const SEARCH_CALLS = QUICK ? 50 : 500;
const WEFT_BIN = join(REPO_ROOT, 'bin/weft.js');

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
    child.once('exit', (code) => (elapsed === undefined ? reject(new Error(`weft mcp start exited with ${code} before answering tools/list`)) : resolve(elapsed)));
    child.stdin.write(line({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }));
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

/** The 100k-run store, generated once and cached; returns its storage dir and run ids. */
async function bigStore(): Promise<{ dir: string; ids: string[]; generatedSeconds: number | null }> {
  const dir = join(CACHE_DIR, `mcp-server-${RUNS}-runs`);
  const idsFile = join(dir, 'ids.json');
  if (existsSync(idsFile)) return { dir, ids: JSON.parse(readFileSync(idsFile, 'utf8')) as string[], generatedSeconds: null };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const store = await SqliteRunStore.open({ storageDir: dir, newId: monotonicFactory() });
  const ids: string[] = [];
  const started = now();
  try {
    await store.importRuns(generateRuns(RUNS, EVENTS_PER_RUN, mulberry32(7), ids), 2000);
  } finally {
    await store.close();
  }
  const generatedSeconds = (now() - started) / 1000;
  writeFileSync(idsFile, JSON.stringify(ids));
  console.error(`generated ${formatNumber(RUNS)} runs in ${generatedSeconds.toFixed(1)} s (cached in ${dir})`);
  return { dir, ids, generatedSeconds };
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

interface CallTimes {
  get: Summary;
  search: Summary;
  searchPage: number;
}

async function measureCalls(client: Client, ids: string[]): Promise<CallTimes> {
  const random = mulberry32(11);
  const pick = () => ids[Math.floor(random() * ids.length)] as string;
  const statuses = [['failed'], ['succeeded', 'failed'], ['running', 'blocked', 'paused'], ['cancelled']];
  const get = async () => {
    const result = await client.callTool({ name: 'weft_run_get', arguments: { run_id: pick() } });
    if (result.isError) throw new Error(JSON.stringify(result.content));
  };
  let found = 0;
  const search = async () => {
    const from = T0 + Math.floor(random() * 23) * DAY_MS;
    const result = await client.callTool({
      name: 'weft_run_search',
      arguments: {
        status: statuses[Math.floor(random() * statuses.length)],
        labels: { team: TEAMS[Math.floor(random() * TEAMS.length)] },
        created_after: new Date(from).toISOString(),
        created_before: new Date(from + 7 * DAY_MS).toISOString(),
        limit: 20,
      },
    });
    if (result.isError) throw new Error(JSON.stringify(result.content));
    found += (result.structuredContent as { runs: unknown[] }).runs.length;
  };
  await timeEach(Math.min(200, GET_CALLS), get);
  const getTimes = await timeEach(GET_CALLS, get);
  await timeEach(Math.min(50, SEARCH_CALLS), search);
  found = 0;
  const searchTimes = await timeEach(SEARCH_CALLS, search);
  return { get: getTimes, search: searchTimes, searchPage: found / SEARCH_CALLS };
}

async function overStdio(dir: string, ids: string[]): Promise<CallTimes> {
  const client = new Client({ name: 'bench-stdio', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [WEFT_BIN, '--storage-dir', dir, 'mcp', 'start'], stderr: 'ignore' }));
  try {
    return await measureCalls(client, ids);
  } finally {
    await client.close();
  }
}

async function overHttp(dir: string, ids: string[]): Promise<CallTimes> {
  const child = spawn(process.execPath, [WEFT_BIN, '--storage-dir', dir, 'mcp', 'start', '--http', '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        const match = /listening on (http:\/\/\S+)/.exec(stderr);
        if (match?.[1]) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`weft mcp start --http exited with ${code}: ${stderr}`)));
    });
    const token = readFileSync(join(dir, 'mcp-server-token'), 'utf8').trim();
    // The SDK's HTTP client passes one long-lived AbortSignal to every fetch, and undici keeps a
    // listener on it per request until the request is collected: thousands of calls trip Node's
    // leak warning in this (client) process. Not the server's doing; silence it for the run.
    setMaxListeners(0);
    const client = new Client({ name: 'bench-http', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      return await measureCalls(client, ids);
    } finally {
      await client.close();
    }
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

async function main(): Promise<void> {
  if (!existsSync(join(REPO_ROOT, 'dist/cli.js'))) throw new Error("Build first: 'npm run build' (the benchmark starts bin/weft.js).");
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

    const { dir, ids, generatedSeconds } = await bigStore();
    const stdio = await overStdio(dir, ids);
    const http = await overHttp(dir, ids);
    const loadAfter = loadavg()[0] ?? 0;
    report({ cold: coldSummary, boot: bootSummary, stdio, http, generatedSeconds, loadBefore, loadAfter });
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
}

interface Results {
  cold: Summary;
  boot: Summary;
  stdio: CallTimes;
  http: CallTimes;
  generatedSeconds: number | null;
  loadBefore: number;
  loadAfter: number;
}

function report(results: Results): void {
  const machine = machineInfo();
  const ms = (value: number) => `${formatNumber(value, value < 10 ? 2 : 0)} ms`;
  const check = (value: number, limit: number) => (value < limit ? 'yes' : '**no**');
  const rows: string[][] = [
    [`cold start → first tools/list (stdio), median of ${COLD_SPAWNS}`, ms(results.cold.p50), '< 400 ms', check(results.cold.p50, 400)],
    ['cold start → first tools/list (stdio), p99', ms(results.cold.p99), '', ''],
    ['`node -e 0` boot, median (the floor)', ms(results.boot.p50), '', ''],
  ];
  for (const [name, times] of [['stdio', results.stdio], ['HTTP', results.http]] as const) {
    rows.push(
      [`weft_run_get p50 (${name}, ${formatNumber(GET_CALLS)} calls)`, ms(times.get.p50), '', ''],
      [`weft_run_get p99 (${name})`, ms(times.get.p99), '', ''],
      [`weft_run_search status + label + created range p50 (${name}, ${formatNumber(SEARCH_CALLS)} calls)`, ms(times.search.p50), '', ''],
      [`weft_run_search p99 (${name})`, ms(times.search.p99), '', ''],
    );
  }
  const table = markdownTable({ headers: ['metric', 'value', 'target', 'pass'], rows, align: ['left', 'right', 'left', 'left'] });
  const markdown = [
    '# MCP server benchmark (`weft mcp start`)',
    '',
    `${formatNumber(RUNS)} runs and ${formatNumber(RUNS * EVENTS_PER_RUN)} events stored; Node ${machine.node}, ${machine.cpus} × ${machine.cpuModel}, ${machine.date}; load average ${results.loadBefore.toFixed(2)} before, ${results.loadAfter.toFixed(2)} after.${QUICK ? ' **Quick run: the numbers mean nothing.**' : ''}`,
    '',
    table,
    '',
    'Cold start: spawning `node bin/weft.js mcp start` until the `tools/list` answer arrives (raw JSON-RPC over stdio, nothing loaded in the',
    'child beforehand). Tool calls: the official SDK v2 `Client`, one call at a time, round trip as the client sees it — JSON-RPC, schema',
    'validation of arguments and structured output on both sides, the store read. The spec\'s store targets (run_get p99 < 5 ms, filtered',
    'run_search p99 < 50 ms) are for the store itself (bench/results/store.md); these rows add the MCP round trip on top.',
    '',
  ].join('\n');
  const written = writeResults('mcp-server', { benchmark: 'mcp-server', machine, quick: QUICK, runs: RUNS, events: RUNS * EVENTS_PER_RUN, coldSpawns: COLD_SPAWNS, getCalls: GET_CALLS, searchCalls: SEARCH_CALLS, ...results }, markdown);
  console.log(markdown);
  console.error(`wrote ${written.json} and ${written.markdown}`);
}

await main();
