// The SQLite RunStore: the shared contract on real files, plus what only a database has (WAL, migrations, lock retries, bulk import).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { WeftError } from '../../../core/errors.js';
import { createLogger } from '../../../core/logger.js';
import { noticesUntil } from '../../../../test/contract/run-store-changes.contract.js';
import { runRunStoreContract } from '../../../../test/contract/run-store.contract.js';
import { projectRun } from '../../model/project-run.js';
import type { RunRecord } from '../../model/run-record.js';
import { SqliteRunStore, type ImportedRun } from './sqlite-run-store.js';

const root = mkdtempSync(join(tmpdir(), 'weft-sqlite-store-'));
let dirs = 0;
const freshDir = () => {
  const dir = join(root, `store-${(dirs += 1)}`);
  mkdirSync(dir);
  return dir;
};
afterAll(() => rmSync(root, { recursive: true, force: true }));

runRunStoreContract('sqlite', ({ clock, newId }) => SqliteRunStore.open({ storageDir: freshDir(), clock, newId }));

const params = { workflow: 'build', workflowPath: 'build.toml', cwd: '/work' };

describe('SqliteRunStore', () => {
  it("names its own writes in its notices, and tells another connection's commits as unknown", async () => {
    const dir = freshDir();
    const store = await SqliteRunStore.open({ storageDir: dir });
    const other = await SqliteRunStore.open({ storageDir: dir });
    try {
      const run = await store.createRun({ ...params, initialStatus: 'queued' });
      const own = noticesUntil(
        store,
        (change) => change.kind === 'runs' && change.runs.some((each) => each.id === run.id && each.headSeq === 3),
      );
      await store.appendEvents(run.id, [{ type: 'run-status-changed', payload: { to: 'starting' } }]);
      // The file watch sees that commit too, but the store's own connection shows no other writer: no unknown notice for it.
      expect(await own).toEqual([{ kind: 'runs', runs: [{ id: run.id, headSeq: 3, status: 'starting' }], claimable: false }]);
      const foreign = noticesUntil(store, (change) => change.kind === 'unknown');
      await other.appendEvents(run.id, [{ type: 'run-status-changed', payload: { to: 'running' } }]);
      expect((await foreign).every((change) => change.kind === 'unknown')).toBe(true);
    } finally {
      await Promise.all([store.close(), other.close()]);
    }
  });

  it('keeps one WAL database file in the storage dir, migrated and recorded in schema_version, across reopen', async () => {
    const dir = freshDir();
    const store = await SqliteRunStore.open({ storageDir: dir, clock: () => 1000 });
    const run = await store.createRun({ ...params, labels: { team: 'core' } });
    await store.close();
    const raw = new Database(join(dir, 'weft.db'));
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(raw.prepare('SELECT version, applied_at FROM schema_version').all()).toEqual([
      { version: 1, applied_at: 1000 },
      { version: 2, applied_at: 1000 },
      { version: 3, applied_at: 1000 },
      { version: 4, applied_at: 1000 },
      { version: 5, applied_at: 1000 },
      { version: 6, applied_at: 1000 },
      { version: 7, applied_at: 1000 },
    ]);
    raw.close();
    const reopened = await SqliteRunStore.open({ storageDir: dir });
    expect(await reopened.getRun(run.id)).toEqual(run);
    expect((await reopened.searchRuns({ labels: { team: 'core' } })).runs).toEqual([run]);
    await reopened.close();
  });

  it('refuses a database written by a newer weft, naming the file, and changes nothing', async () => {
    const dir = freshDir();
    await (await SqliteRunStore.open({ storageDir: dir })).close();
    const raw = new Database(join(dir, 'weft.db'));
    raw.prepare("INSERT INTO schema_version (version, name, applied_at) VALUES (99, 'future', 0)").run();
    raw.close();
    const error = await SqliteRunStore.open({ storageDir: dir }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(WeftError.is(error, 'STORE_FAILED')).toBe(true);
    expect((error as Error).message).toContain(join(dir, 'weft.db'));
    expect((error as Error).message).toContain('newer weft');
  });

  it('retries a write while another connection holds the lock, and reports STORE_FAILED if it never frees', async () => {
    const dir = freshDir();
    const other = new Database(join(dir, 'weft.db'));
    const warnings: string[] = [];
    let releaseOnWarning = true;
    const logger = createLogger((record) => {
      warnings.push(record.message);
      if (releaseOnWarning && other.inTransaction) other.exec('COMMIT');
    });
    const store = await SqliteRunStore.open({ storageDir: dir, busyTimeoutMs: 20, logger });
    const run = await store.createRun(params);
    other.exec('BEGIN IMMEDIATE');
    expect((await store.appendEvents(run.id, [{ type: 'artifact-saved', payload: {} }])).map((event) => event.seq)).toEqual([2]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('is locked by another process; retrying (attempt 2 of 3)');

    releaseOnWarning = false;
    other.exec('BEGIN IMMEDIATE');
    const error = await store.appendEvents(run.id, [{ type: 'artifact-saved', payload: {} }]).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    other.exec('ROLLBACK');
    other.close();
    expect(warnings).toHaveLength(3);
    expect(error).toMatchObject({ code: 'STORE_FAILED', data: { reason: 'locked', file: join(dir, 'weft.db') } });
    expect((error as Error).message).toMatch(
      /^Could not append events: the database .* stayed locked by another process through 3 attempt\(s\)/,
    );
    expect((await store.getRun(run.id))?.counts.events).toBe(2);
    await store.close();
  });

  it('commits concurrent writes together: one failing request undoes nothing else', async () => {
    const store = await SqliteRunStore.open({ storageDir: freshDir() });
    const runs = await Promise.all(Array.from({ length: 20 }, () => store.createRun({ ...params, initialStatus: 'queued' })));
    const results = await Promise.allSettled(
      runs.flatMap((run, index) => [
        store.appendEvents(run.id, [{ type: 'artifact-saved', payload: { index } }]),
        store.appendEvents(run.id, [{ type: 'run-status-changed', payload: { to: index % 2 === 0 ? 'starting' : 'succeeded' } }]),
      ]),
    );
    expect(results.map((result) => result.status)).toEqual(
      runs.flatMap((_, index) => ['fulfilled', index % 2 === 0 ? 'fulfilled' : 'rejected']),
    );
    const after = await store.searchRuns({ limit: 100 });
    expect(after.runs.map((run) => [run.status, run.counts.events])).toEqual(
      runs.map((_, index) => [index % 2 === 0 ? 'starting' : 'queued', index % 2 === 0 ? 4 : 3]).reverse(),
    );
    await store.close();
  });

  it('rewrites a run row only when more than the event count and time change; reads complete it from the newest event', async () => {
    const dir = freshDir();
    let now = 5000;
    const store = await SqliteRunStore.open({ storageDir: dir, clock: () => now });
    const run = await store.createRun({ ...params, initialStatus: 'queued' });
    const raw = new Database(join(dir, 'weft.db'), { readonly: true });
    const storedEvents = () =>
      (
        JSON.parse((raw.prepare('SELECT state FROM runs WHERE id = ?').get(run.id) as { state: string }).state) as {
          counts: { events: number };
        }
      ).counts.events;
    const turn = (at?: number) =>
      store.appendEvents(run.id, [
        { type: 'model-turn-finished', stageId: 'a@1', payload: { turn: 1 }, ...(at === undefined ? {} : { at }) },
      ]);

    now = 6000;
    await turn();
    await turn();
    expect(storedEvents()).toBe(2);
    expect(await store.getRun(run.id)).toMatchObject({ updatedAt: 6000, counts: { events: 4 } });
    expect((await store.searchRuns({ ids: [run.id] })).runs[0]).toMatchObject({ updatedAt: 6000, counts: { events: 4 } });

    await turn(5500); // older than the newest event: the head no longer tells the time, so the row is written
    expect(storedEvents()).toBe(5);
    expect(await store.getRun(run.id)).toMatchObject({ updatedAt: 6000, counts: { events: 5 } });

    now = 7000;
    await turn();
    await store.appendEvents(run.id, [{ type: 'tool-call-started', stageId: 'a@1', payload: { tool: 'shell' } }]);
    expect(storedEvents()).toBe(7);
    const events = await store.listEvents(run.id);
    expect(await store.getRun(run.id)).toEqual(events.reduce<RunRecord | undefined>(projectRun, undefined));
    raw.close();
    await store.close();
  });

  it('takes turns with another connection appending to the same run: no sequence number lost or repeated', async () => {
    const dir = freshDir();
    const first = await SqliteRunStore.open({ storageDir: dir });
    const second = await SqliteRunStore.open({ storageDir: dir });
    const run = await first.createRun({ ...params, initialStatus: 'queued' });
    for (let turn = 0; turn < 5; turn += 1) {
      await first.appendEvents(run.id, [{ type: 'model-turn-finished', stageId: 'a@1', payload: { turn, by: 'first' } }]);
      await second.appendEvents(run.id, [{ type: 'model-turn-finished', stageId: 'a@1', payload: { turn, by: 'second' } }]);
    }
    await second.appendEvents(run.id, [{ type: 'run-status-changed', payload: { to: 'starting' } }]);
    const [appended] = await first.appendEvents(run.id, [{ type: 'run-status-changed', payload: { to: 'running' } }]);
    const events = await first.listEvents(run.id);
    expect(events.map((event) => event.seq)).toEqual(Array.from({ length: events.length }, (_, index) => index + 1));
    expect(appended?.payload).toMatchObject({ from: 'starting' });
    expect(await second.getRun(run.id)).toEqual(events.reduce<RunRecord | undefined>(projectRun, undefined));
    await first.close();
    await second.close();
  });

  it('imports runs in bulk through the same projection', async () => {
    const store = await SqliteRunStore.open({ storageDir: freshDir() });
    const count = await store.importRuns(
      Array.from({ length: 5 }, (_, index): ImportedRun => ({
        run: { ...params, labels: { n: String(index) } },
        createdAt: 1000 + index,
        events: [
          { type: 'run-status-changed', payload: { to: 'queued' }, at: 2000 },
          { type: 'stage-started', stageId: 'a@1', payload: {}, at: 2001 },
        ],
      })),
      2,
    );
    expect(count).toBe(5);
    const page = await store.searchRuns({ status: ['queued'], createdAfter: 1001 });
    expect(page.runs.map((run) => [run.labels.n, run.createdAt, run.updatedAt, run.currentStageId, run.counts.events])).toEqual([
      ['4', 1004, 2001, 'a@1', 3],
      ['3', 1003, 2001, 'a@1', 3],
      ['2', 1002, 2001, 'a@1', 3],
    ]);
    await expect(store.importRuns([{ run: params, events: [{ type: 'run-archived', payload: {} }] }])).rejects.toMatchObject({
      code: 'RUN_INVALID_PARAMS',
    });
    expect((await store.searchRuns({ archived: 'any', limit: 100 })).runs).toHaveLength(5);
    await store.close();
  });
});
