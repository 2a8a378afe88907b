/**
 * The soak run (`npm run soak -- --minutes N [--store sqlite|postgres|both]`, not part of
 * `npm test`): `weft serve` (API, MCP endpoint and in-process worker) under a steady mixed
 * load for N minutes per store — runs with command, tool, parallel, human (answered by this
 * script over the API) and child stages, four at a time, while a dashboard-like client lists
 * runs. Per window: runs completed, errors, p50/p99 stage latency (command and tool stages),
 * the server's RSS and open file descriptors, database bytes per completed run. Results in
 * bench/results/soak-<store>.{json,md}. Flat columns mean no leak and no slowdown.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { rssBytes } from '../../test/fuzz/store-probe.js';
import { WEFT_BIN } from '../../test/helpers/run-cli.js';
import { benchPostgres, type BenchPostgres } from '../lib/postgres.js';
import { RESULTS_DIR } from '../lib/paths.js';
import { listeningUrl } from '../../test/helpers/listening-url.js';

const TOKEN = 'soak-token-0123456789abcdef';
const IN_FLIGHT = 4;

const MIXED = `
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
  rssMb: number;
  fds: number;
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

function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
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

async function startServe(dir: string, storageDir: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [WEFT_BIN, '--storage-dir', storageDir, '--cwd', dir, 'serve', '--port', '0', '--token-env', 'SOAK_TOKEN', '--max-parallel', '8'], {
    cwd: dir,
    env: { ...process.env, SOAK_TOKEN: TOKEN, WEFT_MCP_TOKEN: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { url } = await listeningUrl(child);
  return { child, url };
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

async function soak(store: 'sqlite' | 'postgres', minutes: number, windowMs: number, postgres?: BenchPostgres): Promise<{ windows: Window[]; failures: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), `weft-soak-${store}-`));
  const storageDir = join(dir, '.home');
  mkdirSync(join(dir, '.weft'), { recursive: true });
  writeFileSync(join(dir, 'mixed.toml'), MIXED);
  writeFileSync(join(dir, 'child.toml'), CHILD);
  // The tool stage calls shell: allowed here, as a workflow's author would.
  writeFileSync(join(dir, '.weft', 'settings.toml'), '[[approval.rules]]\npattern = "shell"\naction = "allow"\n');
  const databaseUrl = postgres ? await postgres.createDatabase() : undefined;
  const serve = await startServe(dir, storageDir, databaseUrl ? { WEFT_DATABASE_URL: databaseUrl } : {});
  const pid = serve.child.pid!;
  const windows: Window[] = [];
  const failures: string[] = [];
  const inFlight = new Set<string>();
  let totalCompleted = 0;
  const started = Date.now();
  let window: Window = { index: 0, completed: 0, errors: 0, stageMs: [], rssMb: 0, fds: 0, dbBytes: 0 };
  const closeWindow = async () => {
    window.rssMb = rssBytes(pid) / 1048576;
    window.fds = openFds(pid);
    window.dbBytes = databaseUrl ? await postgres!.databaseBytes(databaseUrl) : sqliteBytes(storageDir);
    windows.push(window);
    console.log(`${store} window ${window.index}: ${window.completed} runs, ${window.errors} errors, stage p50 ${percentile(window.stageMs, 50)} ms p99 ${percentile(window.stageMs, 99)} ms, RSS ${window.rssMb.toFixed(0)} MB, ${window.fds} fds`);
    window = { index: window.index + 1, completed: 0, errors: 0, stageMs: [], rssMb: 0, fds: 0, dbBytes: 0 };
  };
  try {
    while (Date.now() - started < minutes * 60_000) {
      while (inFlight.size < IN_FLIGHT) {
        const created = await api<{ run?: { id: string }; error?: { message: string } }>(serve.url, 'POST', '/runs', { workflow: 'mixed.toml', auto_approve: true });
        if (created.status !== 201 || !created.body.run) {
          window.errors += 1;
          failures.push(`create: ${created.status} ${JSON.stringify(created.body).slice(0, 200)}`);
          break;
        }
        inFlight.add(created.body.run.id);
      }
      // A dashboard's list, read as the load goes on.
      const listed = await api(serve.url, 'GET', '/runs?limit=50');
      if (listed.status !== 200) window.errors += 1;
      for (const id of [...inFlight]) {
        const { body: detail } = await api<Detail>(serve.url, 'GET', `/runs/${id}`);
        for (const question of detail.pending_questions) await api(serve.url, 'POST', `/runs/${id}/answer`, { question_id: question.id, answer: true });
        if (!['succeeded', 'failed', 'cancelled'].includes(detail.run.status)) continue;
        inFlight.delete(id);
        if (detail.run.status === 'succeeded') {
          window.completed += 1;
          totalCompleted += 1;
        } else {
          window.errors += 1;
          failures.push(`run ${id} ${detail.run.status}: ${detail.run.reason ?? ''}`);
        }
        for (const stage of detail.stages) if ((stage.kind === 'command' || stage.kind === 'tool') && stage.duration_ms !== null) window.stageMs.push(stage.duration_ms);
      }
      if (Date.now() - started >= (window.index + 1) * windowMs) await closeWindow();
      // The pace of a polling client (also what lets the server's stages run between polls).
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // The last window, unless the time ran out right at a window's edge.
    if (windows.length === 0 || window.completed + window.errors > 0) await closeWindow();
    console.log(`${store}: ${totalCompleted} runs completed`);
    return { windows, failures };
  } finally {
    const exited = new Promise((resolve) => serve.child.once('exit', resolve));
    serve.child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

function markdown(store: string, minutes: number, windowMs: number, result: { windows: Window[]; failures: string[] }, load: [number, number]): string {
  let previousBytes = 0;
  const rows = result.windows.map((window) => {
    const perRun = window.completed > 0 ? ((window.dbBytes - previousBytes) / window.completed / 1024).toFixed(1) : '—';
    previousBytes = window.dbBytes;
    return `| ${window.index + 1} | ${window.completed} | ${window.errors} | ${percentile(window.stageMs, 50)} | ${percentile(window.stageMs, 99)} | ${window.rssMb.toFixed(0)} | ${window.fds} | ${(window.dbBytes / 1048576).toFixed(1)} | ${perRun} |`;
  });
  return [
    `# Soak: ${store}`,
    '',
    `\`npm run soak -- --minutes ${minutes} --store ${store}\` — ${new Date().toISOString()}, windows of ${windowMs / 1000} s, load average ${load[0].toFixed(2)} before, ${load[1].toFixed(2)} after.`,
    `Load: ${IN_FLIGHT} runs of \`mixed\` in flight (command, tool, parallel, human answered over the API, child), a run list read every poll. Server: one \`weft serve\` (in-process worker).`,
    '',
    '| window | runs completed | errors | stage p50 (ms) | stage p99 (ms) | serve RSS (MB) | serve fds | DB (MB) | DB growth per run (KiB) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    ...(result.failures.length > 0 ? ['Errors:', '', ...result.failures.slice(0, 20).map((failure) => `- ${failure}`), ''] : []),
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
