/**
 * A runner process dies (SIGKILL) in the middle of a stage; another runner takes the run
 * over once the lease expires. The stages that had completed do not run again, the
 * killed stage is recorded as abandoned and runs again as a new attempt, and the event
 * log has no gap and no duplicate. Real processes throughout; leases are shortened with
 * WEFT_LEASE_MS so the takeover happens within a second.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WEFT_BIN } from './helpers/run-cli.js';
import { createSandbox, isAlive, processesMentioning, readLines, readPid, stopProcesses, until, type Sandbox } from './fixtures/workflows-e2e/harness.js';

const LEASE = { WEFT_LEASE_MS: '600' };

// Real processes on a possibly busy machine: more time than the default 30 s.
vi.setConfig({ testTimeout: 60_000 });

let box: Sandbox;
let worker: ChildProcess | undefined;

beforeEach(async () => {
  box = await createSandbox();
  worker = undefined;
});
afterEach(async () => {
  if (worker?.pid !== undefined && worker.exitCode === null && worker.signalCode === null) await stopProcesses([worker.pid]);
  // The killed stage's shell (if a test failed before killing it) and its second attempt.
  const hold = await readPid(join(box.ws, 'hold.pid'));
  if (hold !== undefined && (await isAlive(hold))) killGroup(hold);
  await box.dispose();
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** The pid in a runner's worker id (`<pid>-<ulid>`). */
function runnerPid(workerId: string): number {
  return Number(workerId.split('-')[0]);
}

const RESTARTS = {
  'a new `weft worker --until-idle`': async () => {
    worker = spawn(process.execPath, [WEFT_BIN, '--cwd', box.ws, 'worker', '--until-idle'], { cwd: box.ws, env: { ...process.env, ...box.env, ...LEASE }, stdio: 'ignore' });
  },
  'the runner that the next `weft run` starts': async () => {
    const other = await box.cli(['run', 'ok.toml', '--detach'], LEASE);
    expect(other.code, other.stderr).toBe(0);
  },
};

describe('crash recovery', () => {
  it.each(Object.keys(RESTARTS) as (keyof typeof RESTARTS)[])('a runner killed mid-stage is replaced by %s; nothing runs twice, no event is lost', async (restart) => {
    const detached = await box.cli(['run', 'stages.toml', '--detach'], LEASE);
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();

    // `hold` is running (it waits for release.marker); one and two have completed.
    const holdPid = await until('the hold stage to start', async () => ((await readLines(join(box.ws, 'hold-starts.txt'))).length === 1 ? readPid(join(box.ws, 'hold.pid')) : undefined));
    const running = await box.inspect(id);
    expect(running).toMatchObject({ status: 'running', currentStageId: 'hold@1' });
    const first = runnerPid(running.lease!.workerId);
    expect(await processesMentioning(box.home)).toContain(first);

    // Kill the runner, and the stage's shell (its own process group) so it cannot finish on its own.
    process.kill(first, 'SIGKILL');
    killGroup(holdPid);
    await until('the runner and the stage to die', async () => ((await isAlive(first)) || (await isAlive(holdPid)) ? undefined : true));
    expect(await readLines(join(box.ws, 'trail.txt'))).toEqual(['one', 'two']);

    await RESTARTS[restart]();
    await until('hold to start again', async () => ((await readLines(join(box.ws, 'hold-starts.txt'))).length === 2 ? true : undefined));
    await writeFile(join(box.ws, 'release.marker'), '');
    const waited = await box.cli(['wait', id, '--timeout', '20']);
    expect(waited.stdout).toBe(`${id}  succeeded\n`);
    expect(waited.code).toBe(0);

    // Every stage completed exactly once; hold started twice.
    expect(await readLines(join(box.ws, 'trail.txt'))).toEqual(['one', 'two', 'hold', 'three']);
    expect(await readLines(join(box.ws, 'hold-starts.txt'))).toEqual(['start', 'start']);

    const events = await box.events(id, '--json');
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const stages = events.filter((event) => event.type === 'stage-started' || event.type === 'stage-finished').map((event) => `${event.type === 'stage-started' ? '▶' : '■'} ${event.stageId} ${String(event.payload.status ?? '')}`.trim());
    expect(stages).toEqual(['▶ one@1', '■ one@1 succeeded', '▶ two@1', '■ two@1 succeeded', '▶ hold@1', '■ hold@1 abandoned', '▶ hold@2', '■ hold@2 succeeded', '▶ three@1', '■ three@1 succeeded']);
    expect(events.find((event) => event.stageId === 'hold@1' && event.type === 'stage-finished')!.payload.error).toBe('runner lost; the stage runs again');
    expect(events.filter((event) => event.type === 'run-status-changed').map((event) => event.payload.to)).toEqual(['pending', 'queued', 'starting', 'running', 'succeeded']);

    const done = await box.inspect(id);
    expect(done).toMatchObject({ status: 'succeeded', attempt: 1, counts: { stages: 5 } });
    expect(done.lease).toBeUndefined();
  });
});
