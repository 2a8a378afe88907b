/**
 * A runner killed (SIGKILL) in the middle of a stage of a run that has its own worktree:
 * the runner that takes the run over resets the worktree to the last checkpoint first, so
 * the stage's second attempt does not see the half-written files of the attempt that died,
 * and does see what the completed stage before it committed. Real git, real processes.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WEFT_BIN } from './helpers/run-cli.js';
import { createSandbox, isAlive, readLines, readPid, stopProcesses, until, type Sandbox } from './fixtures/workflows-e2e/harness.js';

const LEASE = { WEFT_LEASE_MS: '600' };

vi.setConfig({ testTimeout: 90_000 });

let box: Sandbox;
let worker: ChildProcess | undefined;

beforeEach(async () => {
  box = await createSandbox();
  worker = undefined;
});
afterEach(async () => {
  if (worker?.pid !== undefined && worker.exitCode === null && worker.signalCode === null) await stopProcesses([worker.pid]);
  await box.dispose();
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

const FLOW = (dir: string) => `[workflow]
name = "half"
start = "prep"

[nodes.prep]
kind = "command"
run = "echo kept > kept.txt"
next = "hold"

# The first attempt writes half a result and hangs (the test kills its runner); the second lists the files it finds.
[nodes.hold]
kind = "command"
run = "echo $$ > '${dir}/hold.pid'; echo x >> '${dir}/starts'; if [ $(wc -l < '${dir}/starts') -eq 1 ]; then echo half > half.txt; while true; do sleep 0.1; done; fi; ls"
`;

describe('a crash mid-stage in a worktree', () => {
  it('resets the worktree to the last checkpoint before the stage runs again', async () => {
    const dir = join(box.base, 'signals');
    await mkdir(dir);
    await writeFile(join(box.ws, 'half.toml'), FLOW(dir));
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: box.ws,
        encoding: 'utf8',
        env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
      });
    git('init', '-q', '-b', 'main');
    git('add', 'half.toml');
    git('commit', '-qm', 'start');

    const detached = await box.cli(['run', 'half.toml', '--detach'], LEASE);
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();
    const holdPid = await until('the hold stage to write half.txt', async () =>
      (await readLines(join(dir, 'starts'))).length === 1 ? readPid(join(dir, 'hold.pid')) : undefined,
    );
    const running = await box.inspect(id);
    const runner = Number(running.lease!.workerId.split('-')[0]);
    const workDir = join(box.home, 'workspaces', id);
    await until('half.txt in the worktree', async () => ((await readLines(join(workDir, 'half.txt'))).length === 1 ? true : undefined));

    process.kill(runner, 'SIGKILL');
    killGroup(holdPid);
    await until('the runner and the stage to die', async () => ((await isAlive(runner)) || (await isAlive(holdPid)) ? undefined : true));

    worker = spawn(process.execPath, [WEFT_BIN, '--cwd', box.ws, 'worker', '--until-idle'], {
      cwd: box.ws,
      env: { ...process.env, ...box.env, ...LEASE },
      stdio: 'ignore',
    });
    const waited = await box.cli(['wait', id, '--timeout', '60']);
    expect(waited.code, waited.stdout).toBe(0);
    const events = await box.events(id);
    const finishes = events.filter((event) => event.type === 'stage-finished').map((event) => [event.stageId, event.payload.status]);
    expect(finishes).toEqual([
      ['prep@1', 'succeeded'],
      ['hold@1', 'abandoned'],
      ['hold@2', 'succeeded'],
    ]);
    // The second attempt saw prep's committed file and not the dead attempt's half.txt.
    const listed = String(events.find((event) => event.type === 'stage-finished' && event.stageId === 'hold@2')?.payload.output).split(
      '\n',
    );
    expect(listed).toEqual(['half.toml', 'kept.txt']);
    // The user's checkout never saw either file.
    expect(git('status', '--porcelain', '--', 'half.txt', 'kept.txt')).toBe('');
  });
});
