/**
 * Many workers, one PostgreSQL queue: `weft worker` processes with separate storage dirs
 * (as separate hosts would have) drain queued runs exactly once, and a worker killed
 * mid-stage is replaced once its lease runs out — completed stages are not run again, and
 * the event log has no gap and no duplicate. A worker only paused (SIGSTOP, as a long GC
 * pause or a suspended VM would) and resumed after the takeover is fenced: its late append
 * is refused. Leases are shortened through WEFT_LEASE_MS.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { isAlive, readLines, readPid, until } from './fixtures/workflows-e2e/harness.js';
import { usePgClusters } from './helpers/pg-clusters.js';
import { allEvents, expectGapless, stagesStarted, type PgCluster } from './helpers/pg-workers.js';
import { runCli } from './helpers/run-cli.js';

// Real processes and a real database on a possibly busy machine.
vi.setConfig({ testTimeout: 120_000 });

const pg = usePgClusters();
let cluster: PgCluster | undefined;

const THREE_STAGES = `
[workflow]
name = "three"

[nodes.a]
kind = "command"
run = 'echo "{{ run.id }} a $WORKER_NAME" >> executed.txt'
next = "b"

[nodes.b]
kind = "command"
run = 'echo "{{ run.id }} b $WORKER_NAME" >> executed.txt'
next = "c"

[nodes.c]
kind = "command"
run = 'echo "{{ run.id }} c $WORKER_NAME" >> executed.txt'
`;

const HOLD = `
[workflow]
name = "hold"

[nodes.one]
kind = "command"
run = 'echo one >> trail.txt'
next = "hold"

[nodes.hold]
kind = "command"
run = '''
echo $$ > hold.pid
echo "start $WORKER_NAME" >> hold-starts.txt
while [ ! -f release.marker ]; do sleep 0.05; done
echo hold >> trail.txt
'''
next = "two"

[nodes.two]
kind = "command"
run = 'echo two >> trail.txt'
`;

/** Two workers on the HOLD workflow, its `hold` stage started on one of them (the holder). */
async function holdOnOneOfTwoWorkers() {
  cluster = await pg.start(1000);
  const file = await cluster.workflow('hold', HOLD);
  const id = await cluster.queue(file, 'hold');
  const workers = await Promise.all(['w1', 'w2'].map((name) => cluster!.startWorker(name)));
  const ws = cluster.ws;
  const holdPid = await until(
    'the hold stage to start',
    async () => ((await readLines(join(ws, 'hold-starts.txt'))).length === 1 ? readPid(join(ws, 'hold.pid')) : undefined),
    30_000,
  );
  const first = (await readLines(join(ws, 'hold-starts.txt')))[0]?.split(' ')[1];
  return {
    id,
    ws,
    holdPid,
    holder: workers.find((worker) => worker.name === first)!,
    other: workers.find((worker) => worker.name !== first)!,
  };
}

/** After a takeover: every stage ran once but `hold`, whose first attempt was abandoned; the log has no gap or duplicate. */
async function expectHoldRanTwiceAfterTakeover(id: string, ws: string): Promise<void> {
  expect(await readFile(join(ws, 'trail.txt'), 'utf8')).toBe('one\nhold\ntwo\n');
  const events = await allEvents(cluster!.store, id);
  expectGapless(events);
  expect(stagesStarted(events)).toEqual(['one', 'hold', 'hold', 'two']);
  const finished = events
    .filter((event) => event.type === 'stage-finished')
    .map((event) => `${event.stageId} ${String(event.payload.status)}`);
  expect(finished).toEqual(['one@1 succeeded', 'hold@1 abandoned', 'hold@2 succeeded', 'two@1 succeeded']);
}

describe('workers on several hosts sharing PostgreSQL', () => {
  it('4 workers drain 200 queued runs, each run executed exactly once', async () => {
    cluster = await pg.start(5000);
    const file = await cluster.workflow('three', THREE_STAGES);
    const ids = new Set<string>();
    for (let index = 0; index < 200; index += 1) ids.add(await cluster.queue(file, 'three'));
    const workers = await Promise.all(['w1', 'w2', 'w3', 'w4'].map((name) => cluster!.startWorker(name)));

    const store = cluster.store;
    await until(
      'all 200 runs to succeed',
      async () => {
        const page = await store.searchRuns({ status: ['succeeded', 'failed', 'cancelled'], limit: 500 });
        return page.runs.length === 200 ? true : undefined;
      },
      90_000,
      200,
    );
    const ended = (await store.searchRuns({ limit: 500 })).runs;
    expect(ended.filter((run) => run.status !== 'succeeded').map((run) => `${run.id} ${run.status} ${run.reason ?? ''}`)).toEqual([]);

    const executed = (await readLines(join(cluster.ws, 'executed.txt'))).map((line) => line.split(' '));
    // Every stage of every run ran once: 600 lines, no (run, stage) twice.
    expect(executed).toHaveLength(600);
    expect(new Set(executed.map(([run, stage]) => `${run} ${stage}`)).size).toBe(600);
    expect(new Set(executed.map(([run]) => run))).toEqual(ids);
    // The work was shared (which worker took how much depends on the machine).
    expect(new Set(executed.map(([, , worker]) => worker)).size).toBeGreaterThan(1);
    for (const id of ids) {
      const events = await allEvents(store, id);
      expectGapless(events);
      expect(stagesStarted(events)).toEqual(['a', 'b', 'c']);
    }
    expect(workers.every((worker) => worker.child.exitCode === null)).toBe(true);
  });

  it('a worker SIGKILLed mid-stage is replaced after its lease runs out: no gap, no duplicate, completed stages not run again', async () => {
    const { id, ws, holdPid, holder: victim, other: survivor } = await holdOnOneOfTwoWorkers();
    expect((await cluster!.store.getRun(id))?.lease?.workerId.split('-')[0]).toBe(String(victim.child.pid));

    // The host dies: its worker and the stage's shell (a process group of its own) with it.
    victim.child.kill('SIGKILL');
    try {
      process.kill(-holdPid, 'SIGKILL');
    } catch {
      // gone with its worker
    }
    await until('the worker and its stage to die', async () =>
      (await isAlive(victim.child.pid!)) || (await isAlive(holdPid)) ? undefined : true,
    );

    await until(
      'hold to start again on the other worker',
      async () => ((await readLines(join(ws, 'hold-starts.txt'))).length === 2 ? true : undefined),
      30_000,
    );
    await writeFile(join(ws, 'release.marker'), '');
    await until('the run to succeed', async () => ((await cluster!.store.getRun(id))?.status === 'succeeded' ? true : undefined), 30_000);

    expect(await readLines(join(ws, 'hold-starts.txt'))).toEqual([`start ${victim.name}`, `start ${survivor.name}`]);
    await expectHoldRanTwiceAfterTakeover(id, ws);
  });

  it('a worker paused mid-stage past its lease is fenced when it resumes: its late append is refused, the log has no gap or duplicate', async () => {
    const { id, ws, holdPid, holder: paused, other: survivor } = await holdOnOneOfTwoWorkers();

    // The worker stops in its tracks (its stage's shell, a process group of its own, runs on).
    paused.child.kill('SIGSTOP');
    // Its lease runs out; the other worker takes the run over, ends the abandoned stage's shell and runs the stage again.
    await until(
      'hold to start again on the other worker',
      async () => ((await readLines(join(ws, 'hold-starts.txt'))).length === 2 ? true : undefined),
      30_000,
    );
    await until('the abandoned stage to be ended', async () => ((await isAlive(holdPid)) ? undefined : true));
    const takenOver = (await cluster!.store.getRun(id))?.lease?.workerId;
    expect(takenOver?.split('-')[0]).toBe(String(survivor.child.pid));

    // Resumed, it learns that its stage ended and tries to record that. Two things race on resume: its overdue
    // heartbeat (the renewal finds the lease gone, and the runner stops writing) and the stage's end (its append
    // reaches the store, which refuses it: fencing). Either way nothing it writes lands.
    paused.child.kill('SIGCONT');
    const refusal = await until(
      'the resumed worker to fail recording its stage',
      async () =>
        paused
          .stderr()
          .split('\n')
          .find((line) => line.includes(`stage hold@1 of run ${id} could not be recorded:`)),
      30_000,
    );
    const byStore = refusal.includes(`is now leased by runner ${takenOver}`) && refusal.includes('so its append was refused');
    const byRunner = refusal.includes(`runner lost its lease on run ${id}; another runner owns it now`);
    expect(byStore || byRunner, refusal).toBe(true);

    await writeFile(join(ws, 'release.marker'), '');
    await until('the run to succeed', async () => ((await cluster!.store.getRun(id))?.status === 'succeeded' ? true : undefined), 30_000);
    expect(await readLines(join(ws, 'hold-starts.txt'))).toEqual([`start ${paused.name}`, `start ${survivor.name}`]);
    await expectHoldRanTwiceAfterTakeover(id, ws);
    expect(paused.child.exitCode).toBeNull();
  });
});

describe('artifacts on a shared store', () => {
  it('keeps a full tool output in PostgreSQL, readable from another host', async () => {
    cluster = await pg.start(5000);
    await mkdir(join(cluster.ws, '.weft'));
    await writeFile(
      join(cluster.ws, '.weft', 'settings.toml'),
      '[tools]\noutput_limit_bytes = 1024\n\n# A tool stage calling shell asks by default; this one is the workflow author\'s own.\n[[approval.rules]]\npattern = "shell"\naction = "allow"\n',
    );
    const file = await cluster.workflow(
      'big',
      `[workflow]\nname = "big"\n\n[nodes.big]\nkind = "tool"\ntool = "shell"\nargs = { command = "for i in $(seq 1 400); do echo line-$i; done" }\n`,
    );
    const id = await cluster.queue(file, 'big');
    await cluster.startWorker('w1');
    await until('the run to succeed', async () => ((await cluster!.store.getRun(id))?.status === 'succeeded' ? true : undefined), 30_000);
    const finished = (await allEvents(cluster.store, id)).find((event) => event.type === 'tool-call-finished');
    const ref = String(finished?.payload.artifactPath);
    expect(ref).toMatch(/^weft-artifact:[0-9A-Z]{26}$/);

    // Another host: its own storage dir, only the database in common.
    const otherHome = join(cluster.ws, '..', 'host-reader');
    const read = await runCli(['--storage-dir', otherHome, 'store', 'artifact', ref], {
      cwd: cluster.ws,
      env: { WEFT_DATABASE_URL: pg.url },
    });
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toContain('line-1\n');
    expect(read.stdout).toContain('line-400');
  });
});
