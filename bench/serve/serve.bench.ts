/**
 * bench/serve: `weft serve` through real HTTP clients, side by side in one run.
 *
 * - With 100k runs stored: `GET /api/v1/runs/{id}` and the first page of `GET /api/v1/runs`
 *   (fetch, keep-alive), and `weft_run_get` through the MCP SDK client at `/mcp` of the same
 *   server, in alternating rounds so machine load hits all three alike.
 *   Also one run read again and again (a page polling it), the random gets through node:http
 *   as well as fetch (the client's own cost and garbage show in the tail), and each server's
 *   CPU per API get (from /proc), which a loaded machine's waits inflate less than latency.
 *   With `WEFT_BENCH_BASELINE_BIN=<another build's bin/weft.js>`, that build's `weft serve` runs on the
 *   same store beside this one's, the two asked in turns, request by request: before and
 *   after a change, side by side in one run.
 * - 100 SSE subscribers on one busy run (events appended by another process, as runners
 *   do): every event reaches every subscriber, in order; latency from the append to each
 *   subscriber reading it. Beside it, as many subscribers on the live runs list (`GET
 *   /api/v1/runs` as SSE) while another process creates runs: create → each subscriber.
 *
 *   node --import tsx bench/serve/serve.bench.ts            (after `npm run build`)
 *   node --import tsx bench/serve/serve.bench.ts --quick    (tiny counts, numbers mean nothing)
 *   node --import tsx bench/serve/serve.bench.ts --sse-only (only the two SSE rows; no 100k-run store)
 */
import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { setMaxListeners } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SqliteRunStore } from '../../src/runs/store/sqlite/sqlite-run-store.js';
import { bigStore } from '../lib/big-store.js';
import { startServe, type Served } from '../lib/serve-process.js';
import { now, processCpuMs, sleep } from '../lib/measure.js';
import { REPO_ROOT } from '../lib/paths.js';
import { formatNumber, machineInfo, markdownTable, writeResults } from '../lib/report.js';
import { summarize, type Summary } from '../lib/stats.js';
import { mulberry32 } from '../../src/core/seeded-random.js';
import { measureDashboardFirstPage, type DashboardFirstPage } from './dashboard-first-page.js';
import { listStreamPhase, type ListStreamResults } from './list-stream.js';

const QUICK = process.argv.includes('--quick');
const SSE_ONLY = process.argv.includes('--sse-only');
const RUNS = QUICK ? 2_000 : Number(process.env.BENCH_RUNS ?? 100_000);
const EVENTS_PER_RUN = 10;
const ROUNDS = QUICK ? 2 : 4;
const GETS_PER_ROUND = QUICK ? 50 : 500;
const LISTS_PER_ROUND = QUICK ? 20 : 125;
const SUBSCRIBERS = QUICK ? 10 : 100;
/** Fresh page loads of the dashboard's runs list in a headless Chromium. */
const DASHBOARD_LOADS = QUICK ? 3 : 20;
const BUSY_EVENTS = QUICK ? 30 : 300;
/** Between appends: a busy run (an agent streaming tool calls), not a flood. */
const APPEND_EVERY_MS = 10;
const TOKEN = 'bench-serve-token-0123456789abcdef';
const WEFT_BIN = join(REPO_ROOT, 'bin/weft.js');
const BASELINE = process.env.WEFT_BENCH_BASELINE_BIN;
/** Reads of one run in a row, for the polling row. */
const POLLS_PER_ROUND = QUICK ? 20 : 100;

const auth = { authorization: `Bearer ${TOKEN}` };

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url, { headers: auth });
  if (response.status !== 200) throw new Error(`${url} → ${response.status}: ${await response.text()}`);
  return response.json();
}

async function timed(count: number, call: () => Promise<unknown>, into: number[]): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    const started = now();
    await call();
    into.push(now() - started);
  }
}

/** One server's API gets: latency, and the server's CPU per request. */
interface ApiGets {
  random: Summary;
  polled: Summary;
  viaNodeHttp: Summary | null;
  serverCpuUsPerGet: number | null;
}

interface ReadResults {
  apiGet: ApiGets;
  /** The same rounds against WEFT_BENCH_BASELINE_BIN's server. */
  baselineGet: ApiGets | null;
  apiList: Summary;
  mcpGet: Summary;
  listPageSize: number;
  dashboard: Summary;
  dashboardRows: number;
}

/** A GET through node:http with a keep-alive agent: a lighter client than fetch, with less garbage of its own. */
function getViaNodeHttp(url: string, agent: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: auth }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`${url} → ${res.statusCode}`));
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        resolve();
      });
    });
    req.once('error', reject);
    req.end();
  });
}

/** API gets against one server, with that server's CPU. */
class GetTimes {
  readonly random: number[] = [];
  readonly polled: number[] = [];
  /** Random gets through node:http instead of fetch (the current checkout's server only). */
  readonly viaNodeHttp: number[] = [];
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 1 });
  requests = 0;
  cpuMs = 0;
  cpuGets = 0;
  constructor(readonly served: Served) {}

  async get(id: string, into: number[], client: 'fetch' | 'node:http' = 'fetch'): Promise<void> {
    const url = `${this.served.url}/api/v1/runs/${id}`;
    const started = now();
    await (client === 'fetch' ? getJson(url) : getViaNodeHttp(url, this.#agent));
    into.push(now() - started);
    this.requests += 1;
  }

  close(): void {
    this.#agent.destroy();
  }

  results(): ApiGets {
    return {
      random: summarize(this.random),
      polled: summarize(this.polled),
      viaNodeHttp: this.viaNodeHttp.length === 0 ? null : summarize(this.viaNodeHttp),
      serverCpuUsPerGet: this.cpuGets === 0 ? null : (this.cpuMs * 1000) / this.cpuGets,
    };
  }
}

/**
 * One round of API gets: random runs (through fetch, and for the first server also through
 * node:http), then one run polled. With two servers, request by request in turns (who goes
 * first alternating), so the machine's load falls on both alike.
 */
async function apiRound(servers: readonly GetTimes[], pick: () => string): Promise<void> {
  const before = servers.map((server) => ({ cpu: processCpuMs(server.served.child.pid), requests: server.requests }));
  for (let index = 0; index < GETS_PER_ROUND; index += 1) {
    for (const server of index % 2 === 0 ? servers : [...servers].reverse()) await server.get(pick(), server.random);
    await servers[0]!.get(pick(), servers[0]!.viaNodeHttp, 'node:http');
  }
  servers.forEach((server, at) => {
    const [start, end] = [before[at]!.cpu, processCpuMs(server.served.child.pid)];
    if (start === undefined || end === undefined) return;
    server.cpuMs += end - start;
    server.cpuGets += server.requests - before[at]!.requests;
  });
  const polled = pick();
  for (let index = 0; index < POLLS_PER_ROUND; index += 1) {
    for (const server of index % 2 === 0 ? servers : [...servers].reverse()) await server.get(polled, server.polled);
  }
}

async function readPhase(): Promise<ReadResults & { generatedSeconds: number | null }> {
  const { dir, ids, generatedSeconds } = await bigStore('serve', RUNS, EVENTS_PER_RUN);
  const served = await startServe(dir, WEFT_BIN, TOKEN);
  const baseline = BASELINE === undefined ? undefined : await startServe(dir, BASELINE, TOKEN);
  // The SDK's client passes one long-lived AbortSignal to every fetch (see bench/mcp-server/servers.ts).
  setMaxListeners(0);
  const client = new Client({ name: 'bench-serve', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: auth } }));
  const random = mulberry32(13);
  const pick = () => ids[Math.floor(random() * ids.length)] as string;
  const gets = new GetTimes(served);
  const baselineGets = baseline && new GetTimes(baseline);
  const times = { apiList: [] as number[], mcpGet: [] as number[] };
  let listPageSize = 0;
  let dashboard: DashboardFirstPage;
  try {
    // Warm-up: connections, JIT, the store's page cache.
    for (const server of baseline ? [served, baseline] : [served])
      await timed(50, () => getJson(`${server.url}/api/v1/runs/${pick()}`), []);
    await timed(50, () => client.callTool({ name: 'weft_run_get', arguments: { run_id: pick() } }), []);
    for (let round = 0; round < ROUNDS; round += 1) {
      await apiRound(baselineGets ? [gets, baselineGets] : [gets], pick);
      await timed(GETS_PER_ROUND, () => client.callTool({ name: 'weft_run_get', arguments: { run_id: pick() } }), times.mcpGet);
      await timed(
        LISTS_PER_ROUND,
        async () => {
          const page = (await getJson(`${served.url}/api/v1/runs`)) as { runs: unknown[] };
          listPageSize = page.runs.length;
        },
        times.apiList,
      );
    }
    dashboard = await measureDashboardFirstPage(served.url, TOKEN, DASHBOARD_LOADS);
  } finally {
    await client.close();
    for (const times of [gets, baselineGets]) times?.close();
    await served.stop();
    await baseline?.stop();
  }
  return {
    apiGet: gets.results(),
    baselineGet: baselineGets?.results() ?? null,
    apiList: summarize(times.apiList),
    mcpGet: summarize(times.mcpGet),
    listPageSize,
    dashboard: summarize(dashboard.samples),
    dashboardRows: dashboard.rows,
    generatedSeconds,
  };
}

interface FanOutResults {
  subscribers: number;
  events: number;
  delivered: number;
  inOrder: boolean;
  latency: Summary;
  list: ListStreamResults;
}

/** One subscriber: reads the stream, records when each seq arrived, stops after `lastSeq`. */
async function subscribe(
  url: string,
  runId: string,
  lastSeq: () => number | undefined,
  arrived: Map<number, number>,
  ready: () => void,
): Promise<boolean> {
  const response = await fetch(`${url}/api/v1/runs/${runId}/events`, { headers: { ...auth, accept: 'text/event-stream' } });
  if (!response.body) throw new Error(`no event stream: ${response.status}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let previous = 0;
  let inOrder = true;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('event stream ended');
      const at = now();
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const id = /^id: (\d+)$/m.exec(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (!id) continue;
        const seq = Number(id[1]);
        if (seq !== previous + 1) inOrder = false;
        previous = seq;
        arrived.set(seq, at);
        if (seq === 1) ready();
        if (seq === lastSeq()) return inOrder;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

async function fanOutPhase(): Promise<FanOutResults> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-serve-'));
  const served = await startServe(dir, WEFT_BIN, TOKEN);
  // The appender is another process's store, as a runner's is: notices cross processes.
  const store = await SqliteRunStore.open({ storageDir: dir });
  try {
    const run = await store.createRun({ workflow: 'busy', workflowPath: join(dir, 'busy.toml'), cwd: dir });
    let lastSeq: number | undefined;
    const arrivals = Array.from({ length: SUBSCRIBERS }, () => new Map<number, number>());
    let connected = 0;
    let allConnected!: () => void;
    const everyoneReady = new Promise<void>((resolve) => (allConnected = resolve));
    const subscribers = arrivals.map((arrived) =>
      subscribe(
        served.url,
        run.id,
        () => lastSeq,
        arrived,
        () => {
          connected += 1;
          if (connected === SUBSCRIBERS) allConnected();
        },
      ),
    );
    await everyoneReady;
    const appendedAt = new Map<number, number>();
    for (let index = 0; index < BUSY_EVENTS; index += 1) {
      const started = now();
      const [event] = await store.appendEvents(run.id, [{ type: 'bench-tick', payload: { index, text: 'x'.repeat(200) } }]);
      appendedAt.set(event!.seq, started);
      if (index === BUSY_EVENTS - 1) lastSeq = event!.seq;
      await sleep(APPEND_EVERY_MS);
    }
    const orders = await Promise.all(subscribers);
    const latencies: number[] = [];
    let delivered = 0;
    for (const arrived of arrivals) {
      for (const [seq, at] of appendedAt) {
        const got = arrived.get(seq);
        if (got === undefined) continue;
        delivered += 1;
        latencies.push(got - at);
      }
    }
    // The same server, the same number of subscribers, now on the runs list while runs are created.
    const list = await listStreamPhase(served.url, dir, auth, SUBSCRIBERS, QUICK ? 20 : 100, APPEND_EVERY_MS);
    return {
      subscribers: SUBSCRIBERS,
      events: BUSY_EVENTS,
      delivered,
      inOrder: orders.every(Boolean),
      latency: summarize(latencies),
      list,
    };
  } finally {
    await store.close();
    await served.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const ms = (value: number) => formatNumber(value, 2);

async function main(): Promise<void> {
  const load = loadavg()[0] ?? 0;
  const read = SSE_ONLY ? undefined : await readPhase();
  const loadAfterRead = loadavg()[0] ?? 0;
  const fanOut = await fanOutPhase();
  const cpu = (gets: ApiGets) => (gets.serverCpuUsPerGet === null ? '–' : formatNumber(gets.serverCpuUsPerGet));
  const getRows = (gets: ApiGets, who: string) => [
    [
      `API GET /api/v1/runs/{id} (${formatNumber(RUNS)} runs)${who}`,
      ms(gets.random.p50),
      ms(gets.random.p99),
      formatNumber(gets.random.count),
      cpu(gets),
      '< 5 ms',
    ],
    ...(gets.viaNodeHttp
      ? [
          [
            `API GET /api/v1/runs/{id} through node:http instead of fetch${who}`,
            ms(gets.viaNodeHttp.p50),
            ms(gets.viaNodeHttp.p99),
            formatNumber(gets.viaNodeHttp.count),
            '–',
            '< 5 ms',
          ],
        ]
      : []),
    [
      `API GET /api/v1/runs/{id}, one run read ${POLLS_PER_ROUND}× in a row${who}`,
      ms(gets.polled.p50),
      ms(gets.polled.p99),
      formatNumber(gets.polled.count),
      '–',
      '–',
    ],
  ];
  const readRows = read
    ? [
        ...getRows(read.apiGet, ''),
        ...(read.baselineGet ? getRows(read.baselineGet, ' — baseline') : []),
        [
          `MCP weft_run_get over HTTP (/mcp, same server)`,
          ms(read.mcpGet.p50),
          ms(read.mcpGet.p99),
          formatNumber(read.mcpGet.count),
          '–',
          '–',
        ],
        [
          `API GET /api/v1/runs first page (${read.listPageSize} runs)`,
          ms(read.apiList.p50),
          ms(read.apiList.p99),
          formatNumber(read.apiList.count),
          '–',
          '< 20 ms',
        ],
        [
          `Dashboard runs list, first page in the browser (${read.dashboardRows} rows)`,
          ms(read.dashboard.p50),
          ms(read.dashboard.p99),
          formatNumber(read.dashboard.count),
          '–',
          '< 1,000 ms',
        ],
      ]
    : [];
  const list = fanOut.list;
  const rows = [
    ...readRows,
    [
      `SSE: ${fanOut.subscribers} subscribers × ${fanOut.events} events, append → read`,
      ms(fanOut.latency.p50),
      ms(fanOut.latency.p99),
      formatNumber(fanOut.delivered),
      '–',
      '< 50 ms',
    ],
    [
      `SSE runs list: ${list.subscribers} subscribers × ${list.runs} runs created, create → read`,
      ms(list.latency.p50),
      ms(list.latency.p99),
      formatNumber(list.delivered),
      '–',
      '–',
    ],
  ];
  const markdown = [
    SSE_ONLY ? '# bench/serve --sse-only' : '# bench/serve',
    '',
    `${machineInfo().cpuModel}, ${machineInfo().cpus} CPUs, Node ${process.version}; load average at start ${load.toFixed(2)}, after the reads ${loadAfterRead.toFixed(2)}.${BASELINE ? ` Baseline: ${BASELINE}, the two servers asked in turns, request by request.` : ''}${QUICK ? ' **--quick: numbers mean nothing.**' : ''}`,
    '',
    markdownTable({ headers: ['what', 'p50 ms', 'p99 ms', 'samples', 'server CPU µs/get', 'target p99'], rows }),
    '',
    `SSE: ${formatNumber(fanOut.delivered)} of ${formatNumber(fanOut.subscribers * fanOut.events)} deliveries, ${fanOut.inOrder ? 'every stream in order' : '**out of order**'}; max ${ms(fanOut.latency.max)} ms. Events appended by another process every ${APPEND_EVERY_MS} ms. Runs list: ${formatNumber(list.delivered)} of ${formatNumber(list.subscribers * list.runs)} deliveries, max ${ms(list.latency.max)} ms; runs created by another process every ${APPEND_EVERY_MS} ms.`,
    '',
    `Command: \`npm run build && node --import tsx bench/serve/serve.bench.ts\``,
  ].join('\n');
  const written = writeResults(
    SSE_ONLY ? 'serve-sse' : 'serve',
    { machine: machineInfo(), load, loadAfterRead, baseline: BASELINE ?? null, quick: QUICK, runs: RUNS, read, fanOut },
    markdown,
  );
  console.log(markdown);
  console.error(`\nwrote ${written.json} and ${written.markdown}`);
  if (fanOut.delivered !== fanOut.subscribers * fanOut.events || !fanOut.inOrder || list.delivered !== list.subscribers * list.runs)
    process.exitCode = 1;
}

await main();
