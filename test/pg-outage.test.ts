/**
 * A worker cut off from the database: PostgreSQL stops while runs are mid-stage (their
 * stages finish during the outage), then starts again. The worker survives, the runs
 * finish, and no event is lost or written twice. This file starts a PostgreSQL of its own,
 * since it stops it (also when WEFT_TEST_DATABASE_URL names another server).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';
import type { RunEvent } from '../src/runs/model/run-event.js';
import { readLines, until } from './fixtures/workflows-e2e/harness.js';
import { usePgClusters } from './helpers/pg-clusters.js';
import { allEvents, expectGapless, stagesStarted } from './helpers/pg-workers.js';

vi.setConfig({ testTimeout: 120_000 });

const pg = usePgClusters({ ownServer: true });

const HOLD = `
[workflow]
name = "outage"

[nodes.one]
kind = "command"
run = 'echo "{{ run.id }} one" >> trail.txt'
next = "hold"

[nodes.hold]
kind = "command"
run = '''
echo "{{ run.id }}" >> hold-starts.txt
while [ ! -f release.marker ]; do sleep 0.05; done
echo "{{ run.id }} hold" >> trail.txt
'''
next = "two"

[nodes.two]
kind = "command"
run = 'echo "{{ run.id }} two" >> trail.txt'
`;

it('a worker cut off from PostgreSQL for a while recovers without losing or duplicating events', async () => {
  const cluster = await pg.start(1500);
  const file = await cluster.workflow('outage', HOLD);
  const ids = [await cluster.queue(file, 'outage'), await cluster.queue(file, 'outage'), await cluster.queue(file, 'outage')];
  const worker = await cluster.startWorker('w1');
  const ws = cluster.ws;
  await until(
    'every hold stage to start',
    async () => ((await readLines(join(ws, 'hold-starts.txt'))).length === ids.length ? true : undefined),
    30_000,
  );
  const before = new Map<string, RunEvent[]>();
  for (const id of ids) before.set(id, await allEvents(cluster.store, id));

  await pg.server.stop();
  // The worker notices (its heartbeats fail); the stages finish while the database is away.
  await until(
    'the worker to notice the outage',
    async () => (/could not renew the lease|could not claim/.test(worker.stderr()) ? true : undefined),
    30_000,
  );
  await writeFile(join(ws, 'release.marker'), '');
  await until(
    'the stages to finish',
    async () => ((await readLines(join(ws, 'trail.txt'))).filter((line) => line.endsWith(' hold')).length >= ids.length ? true : undefined),
    30_000,
  );
  await pg.server.start();

  await until(
    'every run to succeed',
    async () =>
      (await Promise.all(ids.map((id) => cluster.store.getRun(id)))).every((run) => run?.status === 'succeeded') ? true : undefined,
    60_000,
    200,
  );
  expect(worker.child.exitCode).toBeNull();
  const trail = await readLines(join(ws, 'trail.txt'));
  for (const id of ids) {
    const events = await allEvents(cluster.store, id);
    expectGapless(events);
    // Nothing written before the outage was lost.
    expect(events.slice(0, before.get(id)!.length)).toEqual(before.get(id));
    // Completed stages did not run again; no stage attempt started or finished twice.
    expect(trail.filter((line) => line === `${id} one`)).toHaveLength(1);
    expect(trail.filter((line) => line === `${id} two`)).toHaveLength(1);
    expect(stagesStarted(events).filter((node) => node !== 'hold')).toEqual(['one', 'two']);
    const finished = events.filter((event) => event.type === 'stage-finished').map((event) => event.stageId);
    expect(new Set(finished).size).toBe(finished.length);
    const started = events.filter((event) => event.type === 'stage-started').map((event) => event.stageId);
    expect(new Set(started).size).toBe(started.length);
  }
});
