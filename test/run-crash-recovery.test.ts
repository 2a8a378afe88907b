/**
 * A runner process dies (SIGKILL) in the middle of a stage; another runner takes the run
 * over once the lease expires. The stages that had completed do not run again, the
 * killed stage is recorded as abandoned and runs again as a new attempt, and the event
 * log has no gap and no duplicate. Real processes throughout; leases are shortened with
 * WEFT_LEASE_MS so the takeover happens within a second.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { groupAlive } from '../src/core/process-group.js';
import { WEFT_BIN } from './helpers/run-cli.js';
import {
  createSandbox,
  isAlive,
  processesMentioning,
  readLines,
  readPid,
  stopProcesses,
  until,
  type Sandbox,
} from './fixtures/workflows-e2e/harness.js';

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
  for (const pgid of await workPids()) if (groupAlive(pgid)) killGroup(pgid);
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
    worker = spawn(process.execPath, [WEFT_BIN, '--cwd', box.ws, 'worker', '--until-idle'], {
      cwd: box.ws,
      env: { ...process.env, ...box.env, ...LEASE },
      stdio: 'ignore',
    });
  },
  'the runner that the next `weft run` starts': async () => {
    const other = await box.cli(['run', 'ok.toml', '--detach'], LEASE);
    expect(other.code, other.stderr).toBe(0);
  },
};

describe('crash recovery', () => {
  it.each(Object.keys(RESTARTS) as (keyof typeof RESTARTS)[])(
    'a runner killed mid-stage is replaced by %s; nothing runs twice, no event is lost',
    async (restart) => {
      const detached = await box.cli(['run', 'stages.toml', '--detach'], LEASE);
      expect(detached.code, detached.stderr).toBe(0);
      const id = detached.stdout.trim();

      // `hold` is running (it waits for release.marker); one and two have completed.
      const holdPid = await until('the hold stage to start', async () =>
        (await readLines(join(box.ws, 'hold-starts.txt'))).length === 1 ? readPid(join(box.ws, 'hold.pid')) : undefined,
      );
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
      const stages = events
        .filter((event) => event.type === 'stage-started' || event.type === 'stage-finished')
        .map((event) => `${event.type === 'stage-started' ? '▶' : '■'} ${event.stageId} ${String(event.payload.status ?? '')}`.trim());
      expect(stages).toEqual([
        '▶ one@1',
        '■ one@1 succeeded',
        '▶ two@1',
        '■ two@1 succeeded',
        '▶ hold@1',
        '■ hold@1 abandoned',
        '▶ hold@2',
        '■ hold@2 succeeded',
        '▶ three@1',
        '■ three@1 succeeded',
      ]);
      expect(events.find((event) => event.stageId === 'hold@1' && event.type === 'stage-finished')!.payload.error).toBe(
        'runner lost; the stage runs again',
      );
      expect(events.filter((event) => event.type === 'run-status-changed').map((event) => event.payload.to)).toEqual([
        'pending',
        'queued',
        'starting',
        'running',
        'succeeded',
      ]);

      const done = await box.inspect(id);
      expect(done).toMatchObject({ status: 'succeeded', attempt: 1, counts: { stages: 5 } });
      expect(done.lease).toBeUndefined();
    },
  );
});

/** The pids of the `work` stage's copies in overlap.toml, in the order their lines appear. */
async function workPids(): Promise<number[]> {
  const pids = (await readLines(join(box.ws, 'trail.txt'))).map((line) => Number(line.split(' ')[1]));
  return pids.filter((pid, index) => index === 0 || pids[index - 1] !== pid);
}

/** Children of `parent` running the process watchdog (found by its `weft-watchdog` argument). */
async function watchdogsOf(parent: number): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const [stat, cmdline] = await Promise.all([
      readFile(`/proc/${entry}/stat`, 'utf8').catch(() => ''),
      readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => ''),
    ]);
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === parent && cmdline.split('\0').includes('weft-watchdog')) found.push(Number(entry));
  }
  return found;
}

describe('a command stage whose runner is killed', () => {
  async function startWork(): Promise<{ id: string; runner: number; first: number }> {
    const detached = await box.cli(['run', 'overlap.toml', '--detach'], LEASE);
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();
    const [first] = await until('the work stage to start', async () => ((await workPids()).length === 1 ? workPids() : undefined));
    const running = await box.inspect(id);
    expect(running).toMatchObject({ status: 'running', currentStageId: 'work@1' });
    return { id, runner: runnerPid(running.lease!.workerId), first: first! };
  }

  async function finish(id: string, first: number): Promise<void> {
    worker = spawn(process.execPath, [WEFT_BIN, '--cwd', box.ws, 'worker', '--until-idle'], {
      cwd: box.ws,
      env: { ...process.env, ...box.env, ...LEASE },
      stdio: 'ignore',
    });
    await until('work to start again', async () => ((await workPids()).length >= 2 ? true : undefined));
    // The second copy starts only once the first one's group is gone.
    expect(groupAlive(first)).toBe(false);
    await writeFile(join(box.ws, 'release.marker'), '');
    const waited = await box.cli(['wait', id, '--timeout', '20']);
    expect(waited.stdout).toBe(`${id}  succeeded\n`);

    // One copy after the other, never both: the first one's lines all come before the second's.
    const [, second] = await workPids();
    expect(await workPids()).toEqual([first, second]);
    const trail = await readLines(join(box.ws, 'trail.txt'));
    expect(trail.filter((line) => !line.startsWith('tick'))).toEqual([`start ${first}`, `start ${second}`, `end ${second}`]);
    const groups = (await box.events(id, '--json'))
      .filter((event) => event.type === 'stage-process-started')
      .map((event) => `${event.stageId} ${String(event.payload.pgid)}`);
    expect(groups).toEqual([`work@1 ${first}`, `work@2 ${second}`]);
  }

  it("dies with it: the runner's watchdog ends the stage's process group", async () => {
    const { id, runner, first } = await startWork();
    process.kill(runner, 'SIGKILL');
    // The stage ignores SIGTERM; the watchdog's SIGKILL follows after its grace period.
    await until('the watchdog to end the stage', async () => (groupAlive(first) ? undefined : true));
    await finish(id, first);
  });

  it('is ended by the runner that takes the run over before the stage runs again, when nothing else ended it', async () => {
    const { id, runner, first } = await startWork();
    const watchdogs = await watchdogsOf(runner);
    expect(watchdogs).toHaveLength(1);
    for (const pid of [...watchdogs, runner]) process.kill(pid, 'SIGKILL');
    await until('the runner to die', async () => ((await isAlive(runner)) ? undefined : true));
    expect(groupAlive(first)).toBe(true);
    await finish(id, first);
  });
});

describe('`weft worker --until-idle` right after a runner crash', () => {
  it('takes over at once a run whose lease is still valid but whose runner died on this host', async () => {
    // Leases far longer than the test: only seeing that the holder is dead can free the run.
    const longLease = { WEFT_LEASE_MS: '600000' };
    const detached = await box.cli(['run', 'stages.toml', '--detach'], longLease);
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();
    await until('the hold stage to start', async () =>
      (await readLines(join(box.ws, 'hold-starts.txt'))).length === 1 ? true : undefined,
    );
    const first = runnerPid((await box.inspect(id)).lease!.workerId);
    process.kill(first, 'SIGKILL');
    await until('the runner to die', async () => ((await isAlive(first)) ? undefined : true));

    worker = spawn(process.execPath, [WEFT_BIN, '--cwd', box.ws, 'worker', '--until-idle'], {
      cwd: box.ws,
      env: { ...process.env, ...box.env, ...longLease },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => worker!.once('exit', (code) => resolve(code)));
    await until('hold to start again', async () => ((await readLines(join(box.ws, 'hold-starts.txt'))).length === 2 ? true : undefined));
    const resumed = await box.inspect(id);
    expect(resumed).toMatchObject({ status: 'running', currentStageId: 'hold@2' });
    expect(runnerPid(resumed.lease!.workerId)).toBe(worker.pid);

    await writeFile(join(box.ws, 'release.marker'), '');
    // The worker finishes the run, then exits as idle.
    expect(await exited).toBe(0);
    expect(await box.inspect(id)).toMatchObject({ status: 'succeeded' });
    expect(await readLines(join(box.ws, 'trail.txt'))).toEqual(['one', 'two', 'hold', 'three']);
  });
});
