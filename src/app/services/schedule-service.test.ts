/**
 * The schedule service on a real SQLite store with an injected clock: catch-up and overlap
 * policies, two tickers racing for one due time, a dead ticker's claim completed by another,
 * and `[schedules.*]` synced from settings.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../core/ids.js';
import { SqliteRunStore } from '../../runs/store/sqlite/sqlite-run-store.js';
import type { ScheduleStore } from '../../runs/store/schedule-store.js';
import { RunService } from './run-service.js';
import { SCHEDULE_LABEL, ScheduleService, STALE_CLAIM_MS } from './schedule-service.js';

const WORKFLOW =
  '[workflow]\nname = "nightly"\n\n[run]\nauto_approve = true\n\n[inputs.who]\ndefault = "x"\n\n[nodes.a]\nkind = "command"\nrun = "echo a"\n';
const T0 = Date.parse('2026-03-02T09:59:30Z');
const HOUR = 3_600_000;

let dir: string;
let store: SqliteRunStore;
let schedules: ScheduleStore;
let now: number;
let runs: RunService;

function ticker(workerId = 'w1'): ScheduleService {
  return new ScheduleService({ store: schedules, runs: async () => runs, clock: () => now, workerId });
}

async function scheduleRuns(name: string) {
  return (await runs.search({ labels: { [SCHEDULE_LABEL]: name }, limit: 100 })).runs.sort((a, b) =>
    a.labels['weft.due']!.localeCompare(b.labels['weft.due']!),
  );
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weft-schedule-service-'));
  await writeFile(join(dir, 'nightly.toml'), WORKFLOW);
  now = T0;
  store = await SqliteRunStore.open({ storageDir: join(dir, 'home'), clock: () => now });
  schedules = store.schedules();
  runs = new RunService({ store, clock: () => now, wakeRunners: () => undefined });
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('catch-up after no worker ticked for three and a half hours', () => {
  for (const [policy, expected] of [
    ['all', ['10', '11', '12', '13']],
    ['last', ['13']],
    ['none', []],
  ] as const) {
    it(`catch_up = "${policy}" makes runs for ${expected.length === 0 ? 'no' : expected.join(', ')} o'clock`, async () => {
      const service = ticker();
      await service.add({
        name: 'hourly',
        workflow: 'nightly.toml',
        cwd: dir,
        cron: '0 * * * *',
        timezone: 'UTC',
        catchUp: policy,
        overlap: 'queue',
      });
      now = T0 + 3.5 * HOUR;
      await service.tick();
      const made = await scheduleRuns('hourly');
      expect(made.map((run) => run.labels['weft.due']!.slice(11, 13))).toEqual(expected);
      expect((await schedules.getSchedule('hourly'))?.nextDue).toBe(Date.parse('2026-03-02T14:00:00Z'));
      // The next tick finds nothing due: no run twice.
      await service.tick();
      expect(await scheduleRuns('hourly')).toHaveLength(expected.length);
    });
  }
});

describe('overlap while the previous run is still going', () => {
  async function twoDueTimes(overlap: string) {
    const service = ticker();
    await service.add({ name: 'minutely', workflow: 'nightly.toml', cwd: dir, cron: '* * * * *', timezone: 'UTC', overlap });
    now = Date.parse('2026-03-02T10:00:00.100Z');
    await service.tick();
    now = Date.parse('2026-03-02T10:01:00.100Z');
    await service.tick();
    return service;
  }

  it('skip: the second due time makes no run, and the one after the previous ended does', async () => {
    const service = await twoDueTimes('skip');
    const [first] = await scheduleRuns('minutely');
    expect(await scheduleRuns('minutely')).toHaveLength(1);
    expect((await schedules.listFires('minutely', 10)).map((fire) => fire.state)).toEqual(['skipped', 'created']);
    await runs.cancel(first!.id);
    now = Date.parse('2026-03-02T10:02:00.100Z');
    await service.tick();
    expect(await scheduleRuns('minutely')).toHaveLength(2);
  });

  it('queue: the second run is created but waits, and starts when the previous one ends', async () => {
    const service = await twoDueTimes('queue');
    const [first, second] = await scheduleRuns('minutely');
    expect([first?.status, second?.status]).toEqual(['queued', 'submitted']);
    now += 1000;
    await service.tick();
    expect((await runs.get(second!.id)).status).toBe('submitted');
    await runs.cancel(first!.id);
    await service.tick();
    expect((await runs.get(second!.id)).status).toBe('queued');
    expect((await schedules.listFires('minutely', 10)).map((fire) => fire.state)).toEqual(['created', 'created']);
  });

  it('cancel-previous: the previous run is cancelled and the new one queued', async () => {
    await twoDueTimes('cancel-previous');
    const [first, second] = await scheduleRuns('minutely');
    expect([first?.status, second?.status]).toEqual(['cancelled', 'queued']);
  });
});

describe('exactly once', () => {
  it('two tickers at the same moment make one run for a due time', async () => {
    await ticker().add({ name: 'race', workflow: 'nightly.toml', cwd: dir, cron: '* * * * *', timezone: 'UTC' });
    now = Date.parse('2026-03-02T10:00:00.050Z');
    const reports = await Promise.all([ticker('w1').tick(), ticker('w2').tick(), ticker('w3').tick()]);
    expect(reports.flatMap((report) => report.created)).toHaveLength(1);
    expect(await scheduleRuns('race')).toHaveLength(1);
  });

  it('a fire claimed by a ticker that died before making its run is completed by another, with the claimed run id, after a minute', async () => {
    await ticker().add({ name: 'orphan', workflow: 'nightly.toml', cwd: dir, cron: '* * * * *', timezone: 'UTC' });
    const due = Date.parse('2026-03-02T10:00:00Z');
    now = due + 50;
    const runId = newId();
    // What the dead ticker did before it died: the claim, not the run.
    expect(
      await schedules.claimFires(
        'orphan',
        due,
        due + 60_000,
        [{ schedule: 'orphan', dueAt: due, runId, state: 'claimed', claimedBy: 'dead', claimedAt: now }],
        now,
      ),
    ).toBe(true);
    await ticker('w2').tick();
    expect(await scheduleRuns('orphan')).toHaveLength(0);
    now = due + 50 + STALE_CLAIM_MS + 1;
    await ticker('w2').tick();
    const made = await scheduleRuns('orphan');
    expect(made.map((run) => run.id)).toContain(runId);
    expect((await schedules.listFires('orphan', 10)).find((fire) => fire.dueAt === due)?.state).toBe('created');
  });

  it('paused schedules make nothing; resuming starts from the next time after now', async () => {
    const service = ticker();
    await service.add({ name: 'p', workflow: 'nightly.toml', cwd: dir, cron: '* * * * *', timezone: 'UTC', catchUp: 'all' });
    await service.pause('p');
    now = T0 + HOUR;
    await service.tick();
    expect(await scheduleRuns('p')).toHaveLength(0);
    const resumed = await service.resume('p');
    expect(resumed.nextDue).toBe(Date.parse('2026-03-02T11:00:00Z'));
  });
});

describe('settings', () => {
  it('adds, replaces and removes the schedules settings define, leaving CLI ones alone', async () => {
    const service = ticker();
    await service.add({ name: 'mine', workflow: 'nightly.toml', cwd: dir, cron: '0 3 * * *' });
    const first = await service.syncFromSettings([{ name: 'from-settings', workflow: 'nightly.toml', cwd: dir, cron: '0 4 * * *' }]);
    expect(first).toEqual({ added: ['from-settings'], changed: [], removed: [] });
    expect(await service.syncFromSettings([{ name: 'from-settings', workflow: 'nightly.toml', cwd: dir, cron: '0 4 * * *' }])).toEqual({
      added: [],
      changed: [],
      removed: [],
    });
    expect(
      (await service.syncFromSettings([{ name: 'from-settings', workflow: 'nightly.toml', cwd: dir, cron: '0 5 * * *' }])).changed,
    ).toEqual(['from-settings']);
    expect((await service.syncFromSettings([])).removed).toEqual(['from-settings']);
    expect((await service.list()).map((schedule) => schedule.name)).toEqual(['mine']);
  });
});
