/**
 * Schedules under several workers (issue 26): a schedule due every second for ten seconds,
 * ticked by three `weft worker` processes at once, makes ten runs, not thirty — on SQLite
 * (three processes sharing one storage dir) and on PostgreSQL (three "hosts", each with a
 * storage dir of its own). The ten due times are ten seconds of one minute, a little ahead;
 * catch_up = "all" keeps the count exact even if a loaded machine starts the workers late.
 * The test waits on the store (fires and runs), never on the clock.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { stopProcesses, until } from './fixtures/workflows-e2e/harness.js';
import { testPostgres } from './helpers/postgres.js';
import { runCli, WEFT_BIN } from './helpers/run-cli.js';
import { PostgresRunStore } from '../src/runs/store/postgres/postgres-run-store.js';
import { SqliteRunStore } from '../src/runs/store/sqlite/sqlite-run-store.js';
import type { RunStore } from '../src/runs/store/run-store.js';
import type { ScheduleStore } from '../src/runs/store/schedule-store.js';

vi.setConfig({ testTimeout: 180_000 });

const WORKFLOW = `
[workflow]
name = "tick"

[run]
auto_approve = true

[nodes.say]
kind = "command"
run = "echo tick"
`;

/** Ten whole seconds of one minute, starting at least `leadMs` ahead (UTC), as a six-field cron. */
function tenSecondsAhead(leadMs: number): { cron: string; first: number } {
  const start = new Date(Math.ceil((Date.now() + leadMs) / 10_000) * 10_000);
  const second = start.getUTCSeconds();
  return {
    cron: `${second}-${second + 9} ${start.getUTCMinutes()} ${start.getUTCHours()} ${start.getUTCDate()} ${start.getUTCMonth() + 1} *`,
    first: start.getTime(),
  };
}

interface Box {
  base: string;
  ws: string;
  workers: ChildProcess[];
}

async function box(): Promise<Box> {
  const base = await mkdtemp(join(tmpdir(), 'weft-schedules-'));
  const ws = join(base, 'ws');
  await mkdir(ws);
  await writeFile(join(ws, 'tick.toml'), WORKFLOW);
  return { base, ws, workers: [] };
}

function startWorker(b: Box, env: Record<string, string>): void {
  const child = spawn(process.execPath, [WEFT_BIN, '--cwd', b.ws, 'worker', '--max-parallel', '4'], {
    cwd: b.ws,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  b.workers.push(child);
}

async function tenRunsNotThirty(
  b: Box,
  runs: RunStore,
  schedules: ScheduleStore,
  envOf: (index: number) => Record<string, string>,
): Promise<void> {
  const { cron, first } = tenSecondsAhead(15_000);
  const added = await runCli(
    [
      '--cwd',
      b.ws,
      'schedule',
      'add',
      'every-second',
      'tick.toml',
      '--cron',
      cron,
      '--timezone',
      'UTC',
      '--catch-up',
      'all',
      '--overlap',
      'queue',
    ],
    { cwd: b.ws, env: envOf(0) },
  );
  expect(added.stderr).toContain("Schedules fire only while a 'weft worker'");
  expect(added.code).toBe(0);
  for (let index = 0; index < 3; index += 1) startWorker(b, envOf(index));
  const fires = await until(
    'ten fires, all with their runs',
    async () => {
      const listed = await schedules.listFires('every-second', 50);
      return listed.length >= 10 && listed.every((fire) => fire.state === 'created') ? listed : undefined;
    },
    120_000,
    200,
  );
  expect(fires.map((fire) => fire.dueAt).sort()).toEqual(Array.from({ length: 10 }, (_, index) => first + index * 1000));
  // The schedule has moved past the tenth second (to next year): no worker can fire again.
  expect((await schedules.getSchedule('every-second'))?.nextDue).toBeGreaterThan(first + 9000);
  const made = await runs.searchRuns({ labels: { 'weft.schedule': 'every-second' }, limit: 100 });
  expect(made.runs).toHaveLength(10);
  expect(new Set(made.runs.map((run) => run.labels['weft.due'])).size).toBe(10);
  expect(new Set(made.runs.map((run) => run.id))).toEqual(new Set(fires.map((fire) => fire.runId)));
  // overlap = "queue": every run is started in turn, and each ends.
  await until(
    'the ten runs to succeed',
    async () =>
      (await runs.searchRuns({ labels: { 'weft.schedule': 'every-second' }, status: ['succeeded'], limit: 100 })).runs.length === 10
        ? true
        : undefined,
    120_000,
    200,
  );
}

describe('a schedule every second for ten seconds under three workers', () => {
  let b: Box | undefined;
  afterEach(async () => {
    if (b === undefined) return;
    await stopProcesses(b.workers.map((child) => child.pid).filter((pid): pid is number => pid !== undefined));
    await rm(b.base, { recursive: true, force: true });
    b = undefined;
  });

  it('SQLite: three worker processes on one storage dir make ten runs, not thirty', async () => {
    b = await box();
    const home = join(b.base, 'home');
    const store = await SqliteRunStore.open({ storageDir: home });
    try {
      await tenRunsNotThirty(b, store, store.schedules(), () => ({ WEFT_HOME: home }));
    } finally {
      await store.close();
    }
  });

  describe('PostgreSQL', () => {
    let url: string;
    beforeAll(async () => {
      url = await (await testPostgres()).createDatabase();
    });
    afterAll(async () => (await testPostgres()).dispose());

    it('three workers with storage dirs of their own (three hosts) make ten runs, not thirty', async () => {
      b = await box();
      const store = await PostgresRunStore.open({ url });
      const base = b.base;
      try {
        await tenRunsNotThirty(b, store, store.schedules(), (index) => ({
          WEFT_HOME: join(base, `host-${index}`),
          WEFT_DATABASE_URL: url,
        }));
      } finally {
        await store.close();
      }
    });
  });
});
