/**
 * Issue 27, scenario 6: clock skew. One `weft worker` runs under libfaketime (Debian's
 * `faketime`: LD_PRELOAD, so Node's own clock and its stages' clocks are shifted) 30 s
 * ahead of — or behind — two workers with the true time, on one PostgreSQL database.
 * Leases are kept on the database's clock, so nothing is taken over while its holder is
 * alive: every stage runs once, no attempt is abandoned, and the whole log is sound.
 * Before leases moved to database time, the worker ahead took every other worker's runs
 * over on its first claim, and the worker behind lost its run to the others.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunEvent } from '../src/runs/model/run-event.js';
import { readLines, until } from './fixtures/workflows-e2e/harness.js';
import { allEvents, expectSoundLog, stagesStarted, type PgCluster, type WorkerProcess } from './helpers/pg-workers.js';
import { usePgClusters } from './helpers/pg-clusters.js';
import { ensureSystemPackages, LIBFAKETIME } from './system-packages.js';

// Real processes and a real database on a possibly busy machine.
vi.setConfig({ testTimeout: 120_000 });

const LEASE_MS = 2000;

const HOLD = `
[workflow]
name = "hold"

[nodes.one]
kind = "command"
run = 'echo "{{ run.id }} one" >> trail.txt'
next = "hold"

[nodes.hold]
kind = "command"
run = '''
echo "{{ run.id }} $WORKER_NAME $(date +%s%3N)" >> hold-starts.txt
while [ ! -f release.marker ]; do sleep 0.05; done
echo "{{ run.id }} hold" >> trail.txt
'''
next = "two"

[nodes.two]
kind = "command"
run = 'echo "{{ run.id }} two" >> trail.txt'
`;

beforeAll(() => ensureSystemPackages());
const pg = usePgClusters();
let cluster: PgCluster | undefined;

/** Which worker started each run's `hold` stage (one line per start). */
async function holdStarts(ws: string): Promise<{ run: string; worker: string; clock: number }[]> {
  return (await readLines(join(ws, 'hold-starts.txt'))).map((line) => {
    const [run = '', worker = '', clock = ''] = line.split(' ');
    return { run, worker, clock: Number(clock) };
  });
}

/** The log is sound (the partition scenarios' check) and each stage ran once: none abandoned or interrupted. */
function expectRanOnce(events: RunEvent[]): void {
  expectSoundLog(events, ['one@1 succeeded', 'hold@1 succeeded', 'two@1 succeeded']);
  expect(stagesStarted(events)).toEqual(['one', 'hold', 'two']);
}

describe('clock skew between worker hosts sharing PostgreSQL', () => {
  it.each([
    ['ahead', '+30s'],
    ['behind', '-30s'],
  ])('a worker whose clock is 30 s %s neither takes live runs over nor loses its own', async (_, offset) => {
    cluster = await pg.start(LEASE_MS);
    const ws = cluster.ws;
    const file = await cluster.workflow('hold', HOLD);
    // The first host(s) to join fill up (two runs each at most) and hold their runs mid-stage;
    // those joining later have room to spare, so they keep claiming. The skewed worker is the
    // one with room when it runs ahead (it would take runs), the full one when it runs behind
    // (it would lose its runs).
    const ahead = offset.startsWith('+');
    const startSkewed = (args: string[]) => cluster!.startWorker('skewed', { LD_PRELOAD: LIBFAKETIME, FAKETIME: offset }, args);
    const startNormal = (args: string[]) => Promise.all(['w1', 'w2'].map((name) => cluster!.startWorker(name, {}, args)));
    const queue = (count: number) => Promise.all(Array.from({ length: count }, () => cluster!.queue(file, 'hold')));
    const starts = (count: number) =>
      until(`${count} hold stages to start`, async () => ((await holdStarts(ws)).length === count ? true : undefined), 60_000);
    const full = ['--max-parallel', '2'];
    let skewed: WorkerProcess;
    let normal: WorkerProcess[];
    let mine: string[];
    let held: string[];
    if (ahead) {
      normal = await startNormal(full);
      held = await queue(4);
      await starts(4);
      skewed = await startSkewed([]);
      mine = await queue(2);
      await starts(6);
    } else {
      skewed = await startSkewed(full);
      mine = await queue(2);
      await starts(2);
      normal = await startNormal([]);
      held = await queue(4);
      await starts(6);
    }

    // Three lease periods with every holder renewing, the hosts with room polling for work beside them.
    const ids = [...held, ...mine];
    const leases = async () => Promise.all(ids.map(async (id) => (await cluster!.store.getRun(id))?.lease));
    const before = await leases();
    await until(
      'three lease periods to pass',
      async () =>
        (await leases()).every(
          (lease, index) => lease !== undefined && lease.expiresAt >= (before[index]?.expiresAt ?? Infinity) + 3 * LEASE_MS,
        )
          ? true
          : undefined,
      60_000,
      100,
    );
    // Nobody took anything over: each lease is still its first holder's.
    expect((await leases()).map((lease) => lease?.workerId)).toEqual(before.map((lease) => lease?.workerId));

    const releasedAt = cluster.store.now();
    await writeFile(join(ws, 'release.marker'), '');
    await until(
      'all six runs to succeed',
      async () =>
        (await Promise.all(ids.map((id) => cluster!.store.getRun(id)))).every((run) => run?.status === 'succeeded') ? true : undefined,
      60_000,
    );

    const started = await holdStarts(ws);
    expect(started).toHaveLength(6);
    expect(new Set(started.map((start) => start.run))).toEqual(new Set(ids));
    expect(
      started
        .filter((start) => start.worker === 'skewed')
        .map((start) => start.run)
        .sort(),
    ).toEqual([...mine].sort());
    const trail = await readFile(join(ws, 'trail.txt'), 'utf8');
    for (const id of ids) {
      expect(trail.split('\n').filter((line) => line.startsWith(id))).toEqual([`${id} one`, `${id} hold`, `${id} two`]);
      expectRanOnce(await allEvents(cluster.store, id));
    }
    for (const id of mine) {
      const events = await allEvents(cluster.store, id);
      const createdAt = events[0]!.at;
      // The skew was real: the clock the skewed worker's stage read ('date', under the same LD_PRELOAD) was 30 s off.
      const stageClock = started.find((start) => start.run === id)!.clock;
      if (ahead) expect(stageClock - createdAt).toBeGreaterThan(20_000);
      else expect(createdAt - stageClock).toBeGreaterThan(20_000);
      // Yet its events are stamped on the database's clock: after the run was created, before the release.
      for (const event of events.filter((candidate) => candidate.type === 'stage-started')) {
        expect(event.at).toBeGreaterThanOrEqual(createdAt);
        if (event.stageId !== 'two@1') expect(event.at).toBeLessThan(releasedAt);
      }
    }
    expect([...normal, skewed].every((worker) => worker.child.exitCode === null)).toBe(true);
  });
});
