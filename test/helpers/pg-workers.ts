/**
 * Workers as separate hosts would run them: `weft worker` processes, each with a storage
 * dir of its own, sharing only a PostgreSQL database (WEFT_DATABASE_URL) and a workspace.
 * The test talks to the same database through a `PostgresRunStore` of its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { RunEvent } from '../../src/runs/model/run-event.js';
import { PostgresRunStore } from '../../src/runs/store/postgres/postgres-run-store.js';
import { stopProcesses } from '../fixtures/workflows-e2e/harness.js';
import { WEFT_BIN } from './run-cli.js';

export interface WorkerProcess {
  name: string;
  child: ChildProcess;
  /** What the worker wrote to stderr so far. */
  stderr(): string;
}

export interface PgCluster {
  ws: string;
  store: PostgresRunStore;
  /** Starts `weft worker` (plus `args`, e.g. `--until-idle`) as host `name`. */
  startWorker(name: string, extraEnv?: Record<string, string>, args?: string[]): Promise<WorkerProcess>;
  /** Writes `<name>.toml` into the workspace; returns its path. */
  workflow(name: string, toml: string): Promise<string>;
  /** Creates a queued run of a workflow file, as `weft run --detach` would. */
  queue(workflowPath: string, name: string): Promise<string>;
  dispose(): Promise<void>;
}

export async function pgCluster(url: string, leaseMs: number): Promise<PgCluster> {
  const base = await mkdtemp(join(tmpdir(), 'weft-pg-cluster-'));
  const ws = join(base, 'ws');
  await mkdir(ws);
  const store = await PostgresRunStore.open({ url });
  const workers: WorkerProcess[] = [];
  return {
    ws,
    store,
    async startWorker(name, extraEnv = {}, args = []) {
      const home = join(base, `host-${name}`);
      await mkdir(home);
      const env = {
        ...process.env,
        WEFT_HOME: home,
        WEFT_DATABASE_URL: url,
        WEFT_LEASE_MS: String(leaseMs),
        WORKER_NAME: name,
        ...extraEnv,
      };
      const child = spawn(process.execPath, [WEFT_BIN, '--cwd', ws, 'worker', '--max-parallel', '8', ...args], {
        cwd: ws,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const worker = { name, child, stderr: () => stderr };
      workers.push(worker);
      return worker;
    },
    async workflow(name, toml) {
      const file = join(ws, `${name}.toml`);
      await writeFile(file, toml);
      return file;
    },
    async queue(workflowPath, name) {
      return (await store.createRun({ workflow: name, workflowPath, cwd: ws, initialStatus: 'queued' })).id;
    },
    async dispose() {
      await stopProcesses(workers.map((worker) => worker.child.pid).filter((pid): pid is number => pid !== undefined));
      await store.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** Every event of a run, oldest first. */
export async function allEvents(store: PostgresRunStore, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for (;;) {
    const page = await store.listEvents(runId, { afterSeq: events.at(-1)?.seq ?? 0, limit: 1000 });
    events.push(...page);
    if (page.length < 1000) return events;
  }
}

/** No gap, no duplicate: seqs are exactly 1..n. */
export function expectGapless(events: RunEvent[]): void {
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
}

/** The node of each `stage-started` event, in order. */
export function stagesStarted(events: RunEvent[]): string[] {
  return events.filter((event) => event.type === 'stage-started').map((event) => (event.stageId ?? '').split('@')[0] ?? '');
}

/** The whole log's invariants: seqs 1..n, no stage attempt finished twice, each attempt started before it finished. */
export function expectSoundLog(events: RunEvent[], finished: string[]): void {
  expectGapless(events);
  const ends = events.filter((event) => event.type === 'stage-finished').map((event) => `${event.stageId} ${String(event.payload.status)}`);
  expect(ends).toEqual(finished);
  expect(new Set(ends.map((end) => end.split(' ')[0])).size).toBe(ends.length);
  for (const event of events.filter((candidate) => candidate.type === 'stage-finished')) {
    const started = events.find((candidate) => candidate.type === 'stage-started' && candidate.stageId === event.stageId);
    expect(started && started.seq < event.seq, `${event.stageId} finished without starting first`).toBe(true);
  }
}
