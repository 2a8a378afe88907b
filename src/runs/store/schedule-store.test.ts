/**
 * The schedule store's contract on both real stores (SQLite file, embedded PostgreSQL): the
 * claim is a compare-and-set that exactly one of many concurrent claimers wins, writing its
 * fires with it; a stale claim is taken over once; a delivery id is recorded once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testPostgres } from '../../../test/helpers/postgres.js';
import { PostgresRunStore } from './postgres/postgres-run-store.js';
import type { ScheduleFire, ScheduleSpec, ScheduleStore } from './schedule-store.js';
import { SqliteRunStore } from './sqlite/sqlite-run-store.js';

const SPEC: ScheduleSpec = {
  workflow: 'w.toml',
  cwd: '/tmp',
  cron: '* * * * *',
  inputs: {},
  catchUp: 'none',
  overlap: 'skip',
  source: 'cli',
};
const DUE = 1_800_000_000_000;

const fire = (claimedBy: string, dueAt = DUE): ScheduleFire => ({
  schedule: 's',
  dueAt,
  runId: `01J00000000000000000000${claimedBy.slice(-3).padStart(3, '0')}`,
  state: 'claimed',
  claimedBy,
  claimedAt: DUE,
});

const stores: { name: string; open: () => Promise<{ schedules: ScheduleStore; close: () => Promise<void> }> }[] = [
  {
    name: 'SQLite',
    open: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'weft-schedule-store-'));
      const store = await SqliteRunStore.open({ storageDir: dir });
      return { schedules: store.schedules(), close: async () => (await store.close(), await rm(dir, { recursive: true, force: true })) };
    },
  },
  {
    name: 'PostgreSQL',
    open: async () => {
      const store = await PostgresRunStore.open({ url: await (await testPostgres()).createDatabase(), poolSize: 8 });
      return { schedules: store.schedules(), close: () => store.close() };
    },
  },
];

afterAll(async () => (await testPostgres()).dispose());

describe.each(stores)('schedule store on $name', ({ open }) => {
  it('of eight concurrent claims of one due time, exactly one wins, and only its fire is written', async () => {
    const { schedules, close } = await open();
    try {
      await schedules.putSchedule('s', SPEC, DUE, DUE - 1000);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, index) => schedules.claimFires('s', DUE, DUE + 60_000, [fire(`w${index}`)], DUE)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect((await schedules.listFires('s', 10)).map((item) => item.claimedBy)).toEqual([`w${winner}`]);
      expect((await schedules.getSchedule('s'))?.nextDue).toBe(DUE + 60_000);
      // A paused schedule is never claimed.
      await schedules.setPaused('s', true, DUE + 60_000, DUE);
      expect(await schedules.claimFires('s', DUE + 60_000, DUE + 120_000, [], DUE + 60_000)).toBe(false);
      expect(await schedules.dueSchedules(DUE + 120_000, 10)).toEqual([]);
    } finally {
      await close();
    }
  });

  it('a stale claim is taken over by one worker; fire states move only from the state named', async () => {
    const { schedules, close } = await open();
    try {
      await schedules.putSchedule('s', SPEC, DUE, DUE - 1000);
      expect(await schedules.claimFires('s', DUE, DUE + 60_000, [fire('dead')], DUE)).toBe(true);
      const [stale] = await schedules.unfinishedFires(DUE + 1, 10);
      expect(stale?.claimedBy).toBe('dead');
      const takeovers = await Promise.all(['a', 'b', 'c'].map((worker) => schedules.reclaimFire(stale!, worker, DUE + 70_000)));
      expect(takeovers.filter(Boolean)).toHaveLength(1);
      expect(await schedules.setFireState('s', DUE, 'waiting', 'created')).toBe(false);
      expect(await schedules.setFireState('s', DUE, 'claimed', 'created')).toBe(true);
      expect(await schedules.unfinishedFires(DUE + 100_000, 10)).toEqual([]);
      expect(await schedules.deleteSchedule('s')).toBe(true);
      expect(await schedules.listFires('s', 10)).toEqual([]);
      expect(await schedules.deleteSchedule('s')).toBe(false);
    } finally {
      await close();
    }
  });

  it('records a delivery id once: a replay gets the first run id', async () => {
    const { schedules, close } = await open();
    try {
      await schedules.putTrigger('gh', { workflow: 'w.toml', cwd: '/tmp', secretEnv: 'S', inputMap: {} }, DUE);
      const results = await Promise.all(
        ['01J000000000000000000000R1', '01J000000000000000000000R2', '01J000000000000000000000R3'].map((runId) =>
          schedules.recordDelivery('gh', 'd-1', runId, DUE),
        ),
      );
      expect(results.filter((result) => result.first)).toHaveLength(1);
      expect(new Set(results.map((result) => result.runId)).size).toBe(1);
      expect((await schedules.recordDelivery('gh', 'd-2', '01J000000000000000000000R4', DUE)).first).toBe(true);
      expect(await schedules.deleteTrigger('gh')).toBe(true);
      expect(await schedules.listTriggers()).toEqual([]);
    } finally {
      await close();
    }
  });
});
