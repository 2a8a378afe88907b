// A runner that finds a run whose lease still looks valid: taken over at once when the
// holder was a process on this host that is gone; waited for (and no idle exit) when the
// holder runs on another host.
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../core/ids.js';
import { createEngineKit, statusChanges, type EngineKit } from '../../../test/kits/engine-kit.js';
import { runnerId, runnerProcess } from './runner-id.js';

const HOUR_MS = 3_600_000;
let kit: EngineKit;
beforeEach(async () => {
  kit = await createEngineKit();
});
afterEach(async () => {
  await kit.close();
});

/** A run that `holder` claimed and started, with an hour-long lease, as if its runner then died. */
async function runLeasedBy(holder: string): Promise<string> {
  const file = await kit.write('wf.toml', '[nodes.only]\nkind = "command"\nrun = "echo done"\n');
  const created = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
  expect((await kit.store.claimRun(holder, HOUR_MS))?.id).toBe(created.id);
  await kit.store.appendEvents(created.id, [
    { type: 'run-status-changed', payload: { from: 'queued', to: 'starting' } },
    { type: 'run-status-changed', payload: { from: 'starting', to: 'running' } },
  ]);
  return created.id;
}

describe('runner ids', () => {
  it('name the process that holds a lease', () => {
    const ulid = newId();
    expect(runnerProcess(runnerId(ulid))).toMatchObject({ pid: process.pid });
    expect(runnerProcess(`123-${ulid}@build-7.example/456`)).toEqual({ pid: 123, host: 'build-7.example', start: '456' });
    expect(runnerProcess(`test-${ulid}`)).toBeUndefined();
  });
});

describe('a worker finding a run with a live-looking lease', () => {
  it('takes it over at once when the holder was a process on this host that is gone', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const holder = runnerId(newId())
      .replace(/^\d+-/, `${dead}-`)
      .replace(/\/\d*$/, '/1');
    const id = await runLeasedBy(holder);
    await kit.runUntilIdle();
    const run = await kit.service.get(id);
    expect(run.status).toBe('succeeded');
    expect(statusChanges(await kit.events(id))).toEqual(['queued', 'starting', 'running', 'succeeded']);
  });

  it('waits for it, instead of exiting as idle, when the holder runs on another host', async () => {
    const holder = `4242-${newId()}@another-host.invalid/1`;
    const id = await runLeasedBy(holder);
    const { worker, done } = kit.startWorker({ idleExitMs: 0 });
    let ended = false;
    void done.then(() => (ended = true));
    await until(() => worker.runsHeldElsewhere === 1);
    expect(ended).toBe(false);
    expect((await kit.service.get(id)).status).toBe('running');

    // The other host's runner gives the run up (it stopped); this worker carries on with it.
    expect(await kit.store.releaseLease(id, holder)).toBe(true);
    await done;
    expect((await kit.service.get(id)).status).toBe('succeeded');
    expect(worker.runsHeldElsewhere).toBe(0);
  });
});

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the worker');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
