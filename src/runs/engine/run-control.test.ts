import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENGINE_EVENT } from '../model/event-types.js';
import type { RunRecord } from '../model/run-record.js';
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

  const ownStageEvents = () => store.appendEvents(run.id, [{ type: ENGINE_EVENT.stageStarted, stageId: 'a@1', payload: { node: 'a', attempt: 1 } }]);

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
