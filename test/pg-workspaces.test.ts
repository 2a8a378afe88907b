/**
 * A run's files across hosts: two `weft worker` processes with different storage dirs and
 * different workspace roots share one PostgreSQL, and a bare repository on disk is the
 * run's remote. The worker that ran the first stage (and pushed its checkpoint) is
 * SIGKILLed mid-stage; the other takes the run over, clones the remote into its own root,
 * and the stage it runs again sees the first stage's files.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ENGINE_EVENT, RUN_EVENT } from '../src/runs/model/event-types.js';
import { isAlive, readLines, readPid, until } from './fixtures/workflows-e2e/harness.js';
import { usePgClusters } from './helpers/pg-clusters.js';
import { allEvents, type PgCluster } from './helpers/pg-workers.js';
import { runCli } from './helpers/run-cli.js';

vi.setConfig({ testTimeout: 120_000 });

const pg = usePgClusters();
let cluster: PgCluster | undefined;

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

describe('workspaces on several hosts sharing PostgreSQL', () => {
  it('a worker killed after the first stage is replaced by one with another root, and its stage sees the first stage’s files', async () => {
    cluster = await pg.start(1000);
    const base = join(cluster.ws, '..');
    const source = join(base, 'source');
    const remote = join(base, 'remote.git');
    const signals = join(base, 'signals');
    await mkdir(source);
    await mkdir(signals);
    await writeFile(join(source, 'README'), 'app\n');
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: source, env: gitEnv });
    execFileSync('git', ['add', '-A'], { cwd: source, env: gitEnv });
    execFileSync('git', ['commit', '-qm', 'start'], { cwd: source, env: gitEnv });
    execFileSync('git', ['clone', '-q', '--bare', source, remote], { env: gitEnv });

    const file = await cluster.workflow(
      'hosts',
      `[workflow]
name = "hosts"
start = "one"

[run.workspace]
mode = "clone"
repo = "${remote}"
remote = "${remote}"

[nodes.one]
kind = "command"
run = "echo one from $WORKER_NAME > one.txt"
next = "hold"

[nodes.hold]
kind = "command"
run = "echo $$ > '${signals}/hold.pid'; echo \\"start $WORKER_NAME\\" >> '${signals}/hold-starts'; if [ $(wc -l < '${signals}/hold-starts') -eq 1 ]; then while true; do sleep 0.1; done; fi; cat one.txt; ls"
`,
    );
    // Created (submitted) on a host of its own (no runner there), then queued for the workers.
    const created = await runCli(['--cwd', cluster.ws, 'create', file, '--json'], {
      cwd: cluster.ws,
      env: { WEFT_HOME: join(base, 'creator'), WEFT_DATABASE_URL: pg.url },
    });
    expect(created.code, created.stderr).toBe(0);
    const id = (JSON.parse(created.stdout) as { id: string }).id;
    await cluster.store.appendEvents(id, [{ type: RUN_EVENT.runStatusChanged, payload: { from: 'submitted', to: 'queued' } }]);
    const workers = await Promise.all(
      ['w1', 'w2'].map((name) => cluster!.startWorker(name, { WEFT_WORKSPACE_ROOT: join(base, `root-${name}`) })),
    );

    const holdPid = await until(
      'the hold stage to start',
      async () => ((await readLines(join(signals, 'hold-starts'))).length === 1 ? readPid(join(signals, 'hold.pid')) : undefined),
      30_000,
    );
    const first = (await readLines(join(signals, 'hold-starts')))[0]?.split(' ')[1];
    const holder = workers.find((worker) => worker.name === first)!;
    const other = workers.find((worker) => worker.name !== first)!;
    process.kill(holder.child.pid!, 'SIGKILL');
    try {
      process.kill(-holdPid, 'SIGKILL');
    } catch {
      // gone with its runner
    }
    await until('the holder to die', async () => ((await isAlive(holder.child.pid!)) ? undefined : true));

    const done = await until(
      'the other worker to finish the run',
      async () => {
        const run = await cluster!.store.getRun(id);
        return run?.status === 'succeeded' || run?.status === 'failed' ? run : undefined;
      },
      60_000,
    );
    expect(done.status, other.stderr()).toBe('succeeded');
    const events = await allEvents(cluster.store, id);
    const finished = events
      .filter((event) => event.type === ENGINE_EVENT.stageFinished)
      .map((event) => [event.stageId, event.payload.status]);
    expect(finished).toEqual([
      ['one@1', 'succeeded'],
      ['hold@1', 'abandoned'],
      ['hold@2', 'succeeded'],
    ]);
    // The second host's stage found the first host's file, in its own workspace root.
    const output = String(events.find((event) => event.type === ENGINE_EVENT.stageFinished && event.stageId === 'hold@2')?.payload.output);
    expect(output).toBe(`one from ${holder.name}\nREADME\none.txt`);
    expect(events.find((event) => event.type === ENGINE_EVENT.checkpointCreated)?.payload.pushed).toBe(true);
    expect(execFileSync('git', ['show', `weft/runs/${id}:one.txt`], { cwd: remote, encoding: 'utf8' })).toBe(`one from ${holder.name}\n`);
  });
});
