import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENGINE_EVENT } from '../model/event-types.js';
import type { RunRecord } from '../model/run-record.js';
import { MemoryRunStore } from '../store/memory/memory-run-store.js';
import type { StoreChange, StoreChangeListener } from '../store/run-store.js';
import { SqliteRunStore } from '../store/sqlite/sqlite-run-store.js';
import { RunControl } from './run-control.js';

describe('RunControl.skipOwn', () => {
  let dir: string;
  let store: SqliteRunStore;
  let run: RunRecord;
  let control: RunControl;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'weft-run-control-'));
    store = await SqliteRunStore.open({ storageDir: dir });
    run = await store.createRun({ workflow: 'w', workflowPath: 'w.toml', cwd: dir, initialStatus: 'queued' });
    // A long safety poll, so only explicit polls read the log in these tests.
    control = new RunControl(store, run.id, 0, 60_000);
  });

  afterEach(async () => {
    control.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ownStageEvents = () =>
    store.appendEvents(run.id, [{ type: ENGINE_EVENT.stageStarted, stageId: 'a@1', payload: { node: 'a', attempt: 1 } }]);

  it('still sees a cancel written between the scanned log and the runner’s own events', async () => {
    await control.poll();
    await store.appendEvents(run.id, [{ type: ENGINE_EVENT.cancelRequested, payload: { reason: 'stop it' } }]);
    control.skipOwn(await ownStageEvents());
    await control.poll();
    expect(control.cancelRequested).toBe(true);
    expect(control.cancelReason).toBe('stop it');
  });

  it('sees a cancel written after the runner’s own skipped events', async () => {
    await control.poll();
    control.skipOwn(await ownStageEvents());
    await store.appendEvents(run.id, [{ type: ENGINE_EVENT.cancelRequested, payload: { reason: 'later' } }]);
    await control.poll();
    expect(control.cancelReason).toBe('later');
  });

  it('does not skip its own events of a watched type', async () => {
    await control.poll();
    control.skipOwn(await store.appendEvents(run.id, [{ type: ENGINE_EVENT.interruptRequested, payload: {} }]));
    await control.poll();
    expect(control.interruptRequested).toBe(true);
  });
});

describe('RunControl on change notices', () => {
  /** A memory store whose notices the test gives by hand, counting the head reads. */
  class HandTold extends MemoryRunStore {
    headReads = 0;
    listener: StoreChangeListener | undefined;
    override async headSeq(id: string): Promise<number | undefined> {
      this.headReads += 1;
      return super.headSeq(id);
    }
    override watchChanges(listener: StoreChangeListener): () => void {
      this.listener = listener;
      return () => (this.listener = undefined);
    }
  }

  let store: HandTold;
  let run: RunRecord;
  let control: RunControl;

  beforeEach(async () => {
    store = new HandTold();
    run = await store.createRun({ workflow: 'w', workflowPath: 'w.toml', cwd: '/work', initialStatus: 'queued' });
    control = new RunControl(store, run.id, 0, 60_000);
    control.start();
    await control.catchUp();
  });

  afterEach(async () => {
    control.stop();
    await store.close();
  });

  /** Tells the control `change`, then lets it catch up; returns how many head reads that cost. */
  const tell = async (change: StoreChange): Promise<number> => {
    const before = store.headReads;
    store.listener?.(change);
    await control.catchUp();
    return store.headReads - before;
  };

  it('reads nothing for a notice about other runs, nor for its own events it skipped', async () => {
    const other = await store.createRun({ workflow: 'w', workflowPath: 'w.toml', cwd: '/work', initialStatus: 'queued' });
    expect(await tell({ kind: 'runs', runs: [{ id: other.id, headSeq: 9 }], claimable: true })).toBe(0);
    const own = await store.appendEvents(run.id, [{ type: ENGINE_EVENT.stageStarted, stageId: 'a@1', payload: { node: 'a', attempt: 1 } }]);
    control.skipOwn(own);
    expect(await tell({ kind: 'runs', runs: [{ id: run.id, headSeq: own.at(-1)!.seq }], claimable: false })).toBe(0);
  });

  it('reads when a notice names its run past what it has read, or without a head', async () => {
    const [cancel] = await store.appendEvents(run.id, [{ type: ENGINE_EVENT.cancelRequested, payload: { reason: 'stop' } }]);
    expect(await tell({ kind: 'runs', runs: [{ id: run.id, headSeq: cancel!.seq }], claimable: false })).toBe(1);
    expect(control.cancelReason).toBe('stop');
    await store.appendEvents(run.id, [{ type: ENGINE_EVENT.interruptRequested, payload: {} }]);
    expect(await tell({ kind: 'runs', runs: [{ id: run.id }], claimable: false })).toBe(1);
    expect(control.interruptRequested).toBe(true);
  });

  it('started on the log the runner read, still finds a cancel written before it watched (its notice unheard)', async () => {
    const read = await store.listEvents(run.id);
    await store.appendEvents(run.id, [{ type: ENGINE_EVENT.cancelRequested, payload: { reason: 'early' } }]);
    const late = new RunControl(store, run.id, 0, 60_000);
    late.start(read);
    await late.catchUp();
    late.stop();
    expect(late.cancelReason).toBe('early');
  });

  it('reads on an unknown notice, since anything may have changed', async () => {
    expect(await tell({ kind: 'unknown' })).toBe(1);
    // Nothing new was found, and nothing new was noticed: the run loop's next catch-up reads nothing.
    expect(await tell({ kind: 'runs', runs: [], claimable: false })).toBe(0);
  });
});
