/**
 * Several real processes on one SQLite run store at once: nothing lost, no gaps or
 * duplicates in any run's sequence numbers, exactly one winner per contested status
 * change and per queued run, and no lock error surfaced. Also: a database file that is not
 * SQLite is refused with a clear error and left untouched.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WeftError } from '../src/core/errors.js';
import type { RunEvent } from '../src/runs/model/run-event.js';
import type { RunStore } from '../src/runs/store/run-store.js';
import { SqliteRunStore } from '../src/runs/store/sqlite/sqlite-run-store.js';
import { REPO_ROOT } from './helpers/run-cli.js';

const WORKER = resolve(REPO_ROOT, 'test/fixtures/run-store-worker.ts');
const root = mkdtempSync(join(tmpdir(), 'weft-store-concurrency-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface WorkerResult {
  worker: string;
  created: string[];
  won: string[];
  lost: string[];
  claimed: string[];
  sharedAppended: number;
  failures: { task: string; code: string; message: string }[];
}

interface RunningWorker {
  ready: Promise<void>;
  go(): void;
  done: Promise<{ code: number | null; result: WorkerResult | undefined; stderr: string }>;
}

function startWorker(plan: Record<string, unknown>): RunningWorker {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, JSON.stringify(plan)], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let signalReady: () => void = () => {};
  const ready = new Promise<void>((resolveReady) => (signalReady = resolveReady));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.startsWith('ready\n')) signalReady();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<{ code: number | null; result: WorkerResult | undefined; stderr: string }>((resolveDone) =>
    child.on('close', (code) => {
      signalReady();
      const line = stdout.split('\n').find((text) => text.startsWith('{'));
      resolveDone({ code, result: line ? (JSON.parse(line) as WorkerResult) : undefined, stderr });
    }),
  );
  return { ready, go: () => child.stdin.end('go\n'), done };
}

async function allEvents(store: RunStore, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for (;;) {
    const page = await store.listEvents(runId, { afterSeq: events.length, limit: 1000 });
    events.push(...page);
    if (page.length < 1000) return events;
  }
}

describe('SQLite run store across processes', () => {
  it('loses nothing when 4 processes create, append, change statuses and claim at once', { timeout: 120_000 }, async () => {
    const storageDir = join(root, 'shared');
    const store = await SqliteRunStore.open({ storageDir });
    const base = { workflow: 'concurrency', workflowPath: 'c.toml', cwd: '/' };
    const running = async () => {
      const run = await store.createRun({ ...base, initialStatus: 'queued' });
      await store.appendEvents(run.id, [
        { type: 'run-status-changed', payload: { to: 'starting' } },
        { type: 'run-status-changed', payload: { to: 'running' } },
      ]);
      await store.claimRun('setup', 1);
      return run.id;
    };
    const shared = [await running(), await running()];
    const contended = [await running(), await running(), await running()];
    const queued = await Promise.all(
      Array.from({ length: 24 }, async () => (await store.createRun({ ...base, initialStatus: 'queued' })).id),
    );
    await store.close();

    const workers = ['a', 'b', 'c', 'd'].map((worker) =>
      startWorker({ storageDir, worker, ownRuns: 15, sharedRuns: shared, sharedAppends: 30, contendedRuns: contended }),
    );
    await Promise.all(workers.map((worker) => worker.ready));
    workers.forEach((worker) => worker.go());
    const outcomes = await Promise.all(workers.map((worker) => worker.done));

    for (const outcome of outcomes) {
      expect({ code: outcome.code, failures: outcome.result?.failures }).toEqual({ code: 0, failures: [] });
      expect(outcome.stderr).not.toMatch(/SQLITE_BUSY|locked|STORE_FAILED/);
    }
    const results = outcomes.map((outcome) => outcome.result as WorkerResult);
    const reopened = await SqliteRunStore.open({ storageDir });
    try {
      const created = results.flatMap((result) => result.created);
      expect(new Set(created).size).toBe(60);
      for (const id of created) {
        const events = await allEvents(reopened, id);
        expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
        expect(await reopened.getRun(id)).toMatchObject({ status: 'succeeded', counts: { events: 9, stages: 1 } });
      }
      for (const id of shared) {
        const events = await allEvents(reopened, id);
        expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 4 + 4 * 2 * 30 - 4 * 30 }, (_, index) => index + 1));
        expect(events.filter((event) => event.type === 'artifact-saved')).toHaveLength(4 * 30);
        expect((await reopened.getRun(id))?.counts.events).toBe(events.length);
      }
      expect(results.reduce((total, result) => total + result.sharedAppended, 0)).toBe(4 * 30 * shared.length);
      for (const id of contended) {
        const winners = results.filter((result) => result.won.includes(id)).map((result) => result.worker);
        expect(winners).toHaveLength(1);
        expect(results.filter((result) => result.lost.includes(id))).toHaveLength(3);
        expect(await reopened.getRun(id)).toMatchObject({ status: 'paused', reason: winners[0], counts: { events: 5 } });
      }
      const claimed = results.flatMap((result) => result.claimed);
      expect(new Set(claimed).size).toBe(claimed.length);
      // Queued and orphaned running runs are all claimed once; the workers' own runs and the
      // contended ones (paused by the race, so no longer claimable) may or may not be.
      const expected = [...queued, ...shared];
      expect(claimed.filter((id) => expected.includes(id)).sort()).toEqual(expected.sort());
      expect(claimed.filter((id) => !expected.includes(id) && !created.includes(id) && !contended.includes(id))).toEqual([]);
    } finally {
      await reopened.close();
    }
  });

  it('refuses a file that is not SQLite with an error naming it, and leaves it untouched', async () => {
    const storageDir = join(root, 'not-a-database');
    const file = join(storageDir, 'weft.db');
    await (await SqliteRunStore.open({ storageDir: join(root, 'placeholder') })).close();
    rmSync(storageDir, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(storageDir, { recursive: true }));
    const content = 'my notes, definitely not a database\n'.repeat(200);
    writeFileSync(file, content);
    const error = await SqliteRunStore.open({ storageDir }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(WeftError.is(error, 'STORE_FAILED')).toBe(true);
    expect((error as WeftError).message).toBe(
      `${file} is not a weft database (not an SQLite file). The file was left untouched. Move it away, or point WEFT_HOME / --storage-dir at another directory.`,
    );
    expect(readFileSync(file, 'utf8')).toBe(content);
    expect([existsSync(`${file}-wal`), existsSync(`${file}-shm`)]).toEqual([false, false]);
  });
});
