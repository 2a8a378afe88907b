/**
 * The soak run (`npm run soak -- --minutes N [--store sqlite|postgres|both]`, not part of
 * `npm test`): `weft serve` (API, MCP endpoint and in-process worker) and a separate
 * `weft mcp start --http` under a steady mixed load for N minutes per store — runs with
 * command, tool, parallel, human (answered by this script over the API), child stages and
 * tool calls to three real MCP servers (server-everything, -filesystem, -memory), four at a
 * time, while a dashboard-like client lists runs and two MCP clients (one per MCP endpoint)
 * poll and subscribe to each run (soak-mcp.ts). Per window: runs completed, errors (lost
 * notices included), p50/p99 stage latency (command and tool stages), the 1-minute load
 * average, RSS and open file descriptors of each long-lived process (soak-processes.ts),
 * database bytes per completed run. Results in bench/results/soak-<store>.{json,md}. Flat
 * columns mean no leak and no slowdown.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { WEFT_BIN } from '../../test/helpers/run-cli.js';
import { freePort } from '../../test/helpers/postgres.js';
import { benchPostgres, type BenchPostgres } from '../lib/postgres.js';
import { RESULTS_DIR } from '../lib/paths.js';
import { listeningUrl } from '../../test/helpers/listening-url.js';
import { EVERYTHING, FILESYSTEM, MEMORY } from '../../test/fixtures/servers/hub-kit.js';
import { McpSoakClient } from './soak-mcp.js';
import { sampleProcesses, type ProcessSample } from './soak-processes.js';
import { probeHeap, type HeapProbe } from './heap-probe.js';

const TOKEN = 'soak-token-0123456789abcdef';
const IN_FLIGHT = 4;

const mixed = (dir: string) => `
[workflow]
name = "mixed"

[nodes.prepare]
kind = "command"
run = "echo prepare"
next = "fan"

[nodes.fan]
kind = "parallel"
branches = ["left", "right"]
join = "joined"

[nodes.left]
kind = "command"
run = "echo left"
next = "joined"

[nodes.right]
kind = "tool"
tool = "shell"
args = { command = "echo right" }
next = "joined"

[nodes.joined]
kind = "join"
next = "echo"

[nodes.echo]
kind = "tool"
tool = "mcp__everything__echo"
args = { message = "soak" }
next = "files"

[nodes.files]
kind = "tool"
tool = "mcp__filesystem__list_directory"
args = { path = ${JSON.stringify(dir)} }
next = "remember"

[nodes.remember]
kind = "tool"
tool = "mcp__memory__create_entities"
args = { entities = [{ name = "soak", entityType = "run", observations = ["a soak run"] }] }
next = "ask"

[nodes.ask]
kind = "human"
question = "Go on?"
type = "yes_no"
next = "sub"

[nodes.sub]
kind = "child"
workflow = "child.toml"
next = "finish"

[nodes.finish]
kind = "command"
run = "echo done"
`;

const CHILD = '[workflow]\nname = "child"\n\n[nodes.only]\nkind = "command"\nrun = "echo child"\n';

interface Window {
  index: number;
  completed: number;
  errors: number;
  stageMs: number[];
  load1: number;
  mcpToolCalls: number;
  mcpNotices: number;
  processes: ProcessSample[];
  /** `weft serve`'s and `weft mcp start`'s heap after a full collection, probed after the RSS sample. */
  heaps: Record<string, HeapProbe>;
  dbBytes: number;
}

function flag(argv: readonly string[], name: string, fallback: string): string {
  const at = argv.indexOf(`--${name}`);
  return at === -1 ? fallback : (argv[at + 1] ?? fallback);
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function sqliteBytes(storageDir: string): number {
  return ['weft.db', 'weft.db-wal'].reduce((sum, name) => {
    try {
      return sum + statSync(join(storageDir, name)).size;
    } catch {
      return sum;
    }
  }, 0);
}

/** A long-lived weft process on the soak's store, its inspector port set (opened only while its heap is probed); resolves once it listens. */
async function startWeft(
  dir: string,
  storageDir: string,
  args: string[],
  env: Record<string, string>,
  inspectPort: number,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [`--inspect-port=127.0.0.1:${inspectPort}`, WEFT_BIN, '--storage-dir', storageDir, '--cwd', dir, ...args],
    {
      cwd: dir,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const { url } = await listeningUrl(child);
  return { child, url };
}

/** `weft serve` (API, /mcp and an in-process worker). */
const startServe = (dir: string, storageDir: string, env: Record<string, string>, inspectPort: number) =>
  startWeft(
    dir,
    storageDir,
    ['serve', '--port', '0', '--token-env', 'SOAK_TOKEN', '--max-parallel', '8'],
    { SOAK_TOKEN: TOKEN, WEFT_MCP_TOKEN: '', ...env },
    inspectPort,
  );

/** The stand-alone MCP server over Streamable HTTP, on the same store: its URL ends in /mcp. */
const startMcpServer = (dir: string, storageDir: string, env: Record<string, string>, inspectPort: number) =>
  startWeft(dir, storageDir, ['mcp', 'start', '--http', '--port', '0'], { WEFT_MCP_TOKEN: TOKEN, ...env }, inspectPort);

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function api<T>(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
}

interface Detail {
  run: { id: string; status: string; reason?: string | null };
  stages: { kind: string; duration_ms: number | null }[];
  pending_questions: { id: string }[];
}

function writeWorkspace(dir: string): void {
  mkdirSync(join(dir, '.weft'), { recursive: true });
  mkdirSync(join(dir, 'files'), { recursive: true });
  writeFileSync(join(dir, 'files', 'hello.txt'), 'hello\n');
  writeFileSync(join(dir, 'mixed.toml'), mixed(join(dir, 'files')));
  writeFileSync(join(dir, 'child.toml'), CHILD);
  // The tool stage calls shell: allowed here, as a workflow's author would.
  writeFileSync(join(dir, '.weft', 'settings.toml'), '[[approval.rules]]\npattern = "shell"\naction = "allow"\n');
  const servers = {
    everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] },
    filesystem: { command: process.execPath, args: [FILESYSTEM, join(dir, 'files')] },
    memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
  };
  writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: servers }));
}

async function soak(
  store: 'sqlite' | 'postgres',
  minutes: number,
  windowMs: number,
  postgres?: BenchPostgres,
): Promise<{ windows: Window[]; failures: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), `weft-soak-${store}-`));
  const storageDir = join(dir, '.home');
  writeWorkspace(dir);
  const databaseUrl = postgres ? await postgres.createDatabase() : undefined;
  const env: Record<string, string> = databaseUrl ? { WEFT_DATABASE_URL: databaseUrl } : {};
  const inspectPorts = { 'weft serve': await freePort(), 'weft mcp start': await freePort() };
  const serve = await startServe(dir, storageDir, env, inspectPorts['weft serve']);
  const mcpServer = await startMcpServer(dir, storageDir, env, inspectPorts['weft mcp start']);
  const clients = [
    await McpSoakClient.connect('serve /mcp', `${serve.url}/mcp`, TOKEN),
    await McpSoakClient.connect('weft mcp', mcpServer.url, TOKEN),
  ];
  const roots = { 'weft serve': serve.child.pid!, 'weft mcp start': mcpServer.child.pid!, 'soak driver (clients)': process.pid };
  const windows: Window[] = [];
  const failures: string[] = [];
  const inFlight = new Set<string>();
  let totalCompleted = 0;
  const started = Date.now();
  const mcpTotals = () =>
    clients.reduce((sum, client) => ({ calls: sum.calls + client.counts.toolCalls, notices: sum.notices + client.counts.notices }), {
      calls: 0,
      notices: 0,
    });
  let reported = { calls: 0, notices: 0, clientErrors: 0 };
  const fresh = (index: number): Window => ({
    index,
    completed: 0,
    errors: 0,
    stageMs: [],
    load1: 0,
    mcpToolCalls: 0,
    mcpNotices: 0,
    processes: [],
    heaps: {},
    dbBytes: 0,
  });
  let window = fresh(0);
  /** Client errors and lost notices since the last look, counted in the current window. */
  const collectClientErrors = (now?: number) => {
    const clientErrors = clients.flatMap((client) => client.counts.errors);
    const fresh = [...clientErrors.slice(reported.clientErrors), ...clients.flatMap((client) => client.lostNotices(now))];
    reported.clientErrors = clientErrors.length;
    window.errors += fresh.length;
    failures.push(...fresh);
  };
  const closeWindow = async () => {
    collectClientErrors();
    const totals = mcpTotals();
    window.mcpToolCalls = totals.calls - reported.calls;
    window.mcpNotices = totals.notices - reported.notices;
    reported = { ...reported, ...totals };
    window.load1 = loadavg()[0]!;
    window.processes = sampleProcesses(roots);
    window.heaps = {
      'weft serve': await probeHeap(serve.child.pid!, inspectPorts['weft serve']),
      'weft mcp start': await probeHeap(mcpServer.child.pid!, inspectPorts['weft mcp start']),
    };
    window.dbBytes = databaseUrl ? await postgres!.databaseBytes(databaseUrl) : sqliteBytes(storageDir);
    windows.push(window);
    const processes = window.processes.map((sample) => `${sample.name} ${sample.rssMb.toFixed(0)} MB/${sample.fds} fds`).join(', ');
    const heaps = Object.entries(window.heaps).map(([name, heap]) => `${name} live heap ${heap.heapUsedMb} MB`);
    console.log(
      `${store} window ${window.index}: ${window.completed} runs, ${window.errors} errors, stage p50 ${percentile(window.stageMs, 50)} ms p99 ${percentile(window.stageMs, 99)} ms, load ${window.load1.toFixed(2)}, ${processes}, ${heaps.join(', ')}`,
    );
    window = fresh(window.index + 1);
  };
  try {
    while (Date.now() - started < minutes * 60_000) {
      while (inFlight.size < IN_FLIGHT) {
        const created = await api<{ run?: { id: string }; error?: { message: string } }>(serve.url, 'POST', '/runs', {
          workflow: 'mixed.toml',
          auto_approve: true,
        });
        if (created.status !== 201 || !created.body.run) {
          window.errors += 1;
          failures.push(`create: ${created.status} ${JSON.stringify(created.body).slice(0, 200)}`);
          break;
        }
        inFlight.add(created.body.run.id);
        for (const client of clients) await client.watch(created.body.run.id);
      }
      // A dashboard's list, read as the load goes on; the MCP clients poll as assistants would.
      const listed = await api(serve.url, 'GET', '/runs?limit=50');
      if (listed.status !== 200) window.errors += 1;
      for (const client of clients) await client.poll([...inFlight]);
      for (const id of [...inFlight]) {
        const { body: detail } = await api<Detail>(serve.url, 'GET', `/runs/${id}`);
        for (const question of detail.pending_questions)
          await api(serve.url, 'POST', `/runs/${id}/answer`, { question_id: question.id, answer: true });
        if (!['succeeded', 'failed', 'cancelled'].includes(detail.run.status)) continue;
        inFlight.delete(id);
        for (const client of clients) client.expectFinished(id);
        if (detail.run.status === 'succeeded') {
          window.completed += 1;
          totalCompleted += 1;
        } else {
          window.errors += 1;
          failures.push(`run ${id} ${detail.run.status}: ${detail.run.reason ?? ''}`);
        }
        for (const stage of detail.stages)
          if ((stage.kind === 'command' || stage.kind === 'tool') && stage.duration_ms !== null) window.stageMs.push(stage.duration_ms);
      }
      collectClientErrors();
      if (Date.now() - started >= (window.index + 1) * windowMs) await closeWindow();
      // The pace of a polling client (also what lets the server's stages run between polls).
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // The runs still in flight are left alone; every finished one must have reached the clients.
    collectClientErrors(Number.POSITIVE_INFINITY);
    // The last window, unless the time ran out right at a window's edge.
    if (windows.length === 0 || window.completed + window.errors > 0) await closeWindow();
    console.log(`${store}: ${totalCompleted} runs completed`);
    return { windows, failures };
  } finally {
    for (const client of clients) await client.close().catch(() => undefined);
    await stop(mcpServer.child);
    await stop(serve.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

function markdown(
  store: string,
  minutes: number,
  windowMs: number,
  result: { windows: Window[]; failures: string[] },
  load: [number, number],
): string {
  let previousBytes = 0;
  const rows = result.windows.map((window) => {
    const perRun = window.completed > 0 ? ((window.dbBytes - previousBytes) / window.completed / 1024).toFixed(1) : '—';
    previousBytes = window.dbBytes;
    return `| ${window.index + 1} | ${window.load1.toFixed(2)} | ${window.completed} | ${window.errors} | ${percentile(window.stageMs, 50)} | ${percentile(window.stageMs, 99)} | ${window.mcpToolCalls} | ${window.mcpNotices} | ${(window.dbBytes / 1048576).toFixed(1)} | ${perRun} |`;
  });
  const names = [...new Set(result.windows.flatMap((window) => window.processes.map((sample) => sample.name)))];
  const processRows = result.windows.map((window) => {
    const cells = names.map((name) => {
      const sample = window.processes.find((each) => each.name === name);
      return sample
        ? `${(sample.rssMb / sample.count).toFixed(0)} / ${Math.round(sample.fds / sample.count)}${sample.count > 1 ? ` (×${sample.count})` : ''}`
        : '—';
    });
    return `| ${window.index + 1} | ${cells.join(' | ')} |`;
  });
  return [
    `# Soak: ${store}`,
    '',
    `\`npm run soak -- --minutes ${minutes} --store ${store}\` — ${new Date().toISOString()}, windows of ${windowMs / 1000} s, load average ${load[0].toFixed(2)} before, ${load[1].toFixed(2)} after (2 cores, shared).`,
    `Load: ${IN_FLIGHT} runs of \`mixed\` in flight (command, shell tool, parallel, three MCP tool stages on server-everything, -filesystem and -memory over stdio, human answered over the API, child), a run list read every poll; two MCP clients over Streamable HTTP (one on \`weft serve\`'s /mcp, one on a separate \`weft mcp start --http\`) subscribed to every run, re-reading it on each notice, and polling \`weft_run_get\` for the runs in flight and \`weft_run_search\`. A run finished without its notice reaching a client within 15 s counts as an error. Server: one \`weft serve\` (in-process worker).`,
    '',
    '| window | load (1 min) | runs completed | errors | stage p50 (ms) | stage p99 (ms) | MCP tool calls | MCP notices | DB (MB) | DB growth per run (KiB) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    'RSS (MB) / open fds per process at the end of each window (the mean when several were alive, ×count: the MCP servers are started per run by its runner, so their count follows the runs in flight):',
    '',
    `| window | ${names.join(' | ')} |`,
    `|---:|${names.map(() => '---:').join('|')}|`,
    ...processRows,
    '',
    "Heap after a full collection at the end of each window (probed through the process's inspector, after the RSS sample above): live objects / what V8 holds for the heap / RSS right after, in MB. Flat live objects mean no leak; RSS above follows how much freed heap V8 keeps between collections.",
    '',
    '| window | weft serve | weft mcp start |',
    '|---:|---:|---:|',
    ...result.windows.map(
      (window) =>
        `| ${window.index + 1} | ${['weft serve', 'weft mcp start']
          .map((name) => {
            const heap = window.heaps[name];
            return heap ? `${heap.heapUsedMb} / ${heap.heapTotalMb} / ${heap.rssMb}` : '—';
          })
          .join(' | ')} |`,
    ),
    '',
    ...(result.failures.length > 0
      ? [`Errors (${result.failures.length}, first 20):`, '', ...result.failures.slice(0, 20).map((failure) => `- ${failure}`), '']
      : []),
  ].join('\n');
}

async function main(argv: readonly string[]): Promise<number> {
  const minutes = Number(flag(argv, 'minutes', '3'));
  const which = flag(argv, 'store', 'both');
  if (!Number.isFinite(minutes) || minutes <= 0) throw new Error(`--minutes needs a positive number, got '${flag(argv, 'minutes', '')}'.`);
  if (!['sqlite', 'postgres', 'both'].includes(which)) throw new Error(`--store is sqlite, postgres or both, not '${which}'.`);
  const windowMs = Math.min(300_000, Math.max(30_000, (minutes * 60_000) / 6));
  mkdirSync(RESULTS_DIR, { recursive: true });
  let errors = 0;
  for (const store of ['sqlite', 'postgres'] as const) {
    if (which !== 'both' && which !== store) continue;
    const postgres = store === 'postgres' ? await benchPostgres() : undefined;
    try {
      const load0 = loadavg()[0]!;
      const result = await soak(store, minutes, windowMs, postgres);
      errors += result.failures.length;
      writeFileSync(join(RESULTS_DIR, `soak-${store}.json`), `${JSON.stringify({ minutes, windowMs, ...result }, null, 2)}\n`);
      writeFileSync(join(RESULTS_DIR, `soak-${store}.md`), `${markdown(store, minutes, windowMs, result, [load0, loadavg()[0]!])}\n`);
    } finally {
      await postgres?.dispose();
    }
  }
  return errors === 0 ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
