/**
 * Concurrency keys across worker processes on both stores: four `weft worker` processes
 * (separate homes on PostgreSQL, as separate hosts; one shared storage dir on SQLite) with
 * room for many runs each never run two runs of one key at once, show why the others wait
 * (`weft ps`, `weft inspect`), start the next run when a holder ends, and free the slot of
 * a SIGKILLed worker once its lease runs out. Each stage proves the key held by taking a
 * lock directory and reporting any live holder it finds there; it waits for the test's
 * release marker, so overlaps would be real.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RunService } from '../src/app/services/run-service.js';
import type { RunStore } from '../src/runs/store/run-store.js';
import { PostgresRunStore } from '../src/runs/store/postgres/postgres-run-store.js';
import { SqliteRunStore } from '../src/runs/store/sqlite/sqlite-run-store.js';
import { isAlive, readLines, stopProcesses, until } from './fixtures/workflows-e2e/harness.js';
import { testPostgres } from './helpers/postgres.js';
import { runCli, WEFT_BIN } from './helpers/run-cli.js';

vi.setConfig({ testTimeout: 120_000 });

const KEYED = `
[workflow]
name = "keyed"

[run]
auto_approve = true

[run.concurrency]
key = "repo:{{ inputs.repo }}"
limit = 1

[inputs.repo]
type = "string"
required = true

[nodes.work]
kind = "command"
run = '''
lock="lock-{{ inputs.repo }}"
if ! mkdir "$lock" 2>/dev/null; then
  holder=$(cat "$lock/pid" 2>/dev/null)
  if [ -z "$holder" ] || kill -0 "$holder" 2>/dev/null; then echo "overlap {{ run.id }} $(cat "$lock/run" 2>/dev/null)" >> overlaps.txt; fi
fi
echo "{{ run.id }}" > "$lock/run"
echo $$ > "$lock/pid"
echo $$ > "pid-{{ run.id }}"
echo "start {{ run.id }} {{ inputs.repo }} $WORKER_NAME" >> starts.txt
while [ ! -f "release-{{ run.id }}" ]; do sleep 0.05; done
rm -rf "$lock"
'''
`;

interface Worker {
  name: string;
  child: ChildProcess;
}

interface Cluster {
  ws: string;
  store: RunStore;
  env: Record<string, string>;
  workers: Worker[];
  startWorker(name: string): Worker;
  dispose(): Promise<void>;
}

async function cluster(kind: 'postgres' | 'sqlite', url?: string): Promise<Cluster> {
  const base = await mkdtemp(join(tmpdir(), `weft-keys-${kind}-`));
  const ws = join(base, 'ws');
  const shared = join(base, 'home');
  await mkdir(ws);
  await mkdir(shared);
  const store: RunStore =
    kind === 'postgres' ? await PostgresRunStore.open({ url: url! }) : await SqliteRunStore.open({ storageDir: shared });
  const env: Record<string, string> =
    kind === 'postgres' ? { WEFT_DATABASE_URL: url!, WEFT_HOME: join(base, 'reader') } : { WEFT_HOME: shared };
  const workers: Worker[] = [];
  return {
    ws,
    store,
    env,
    workers,
    startWorker(name) {
      const home = kind === 'postgres' ? join(base, `host-${name}`) : shared;
      const child = spawn(process.execPath, [WEFT_BIN, '--cwd', ws, 'worker', '--max-parallel', '8'], {
        cwd: ws,
        env: { ...process.env, ...env, WEFT_HOME: home, WEFT_LEASE_MS: '1000', WORKER_NAME: name },
        stdio: ['ignore', 'ignore', 'ignore'],
      });
      const worker = { name, child };
      workers.push(worker);
      return worker;
    },
    async dispose() {
      await stopProcesses(workers.map((worker) => worker.child.pid).filter((pid): pid is number => pid !== undefined));
      await store.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}

type Start = { run: string; repo: string; worker: string };
const startsIn = async (ws: string): Promise<Start[]> =>
  (await readLines(join(ws, 'starts.txt')))
    .map((line) => line.split(' '))
    .map(([, run, repo, worker]) => ({ run: run!, repo: repo!, worker: worker! }));

async function keysAcrossWorkers(c: Cluster): Promise<void> {
  const file = join(c.ws, 'keyed.toml');
  await writeFile(file, KEYED);
  const service = new RunService({ store: c.store, clock: Date.now, wakeRunners: () => undefined });
  const repoA: string[] = [];
  const repoB: string[] = [];
  for (let index = 0; index < 3; index += 1) {
    repoA.push((await service.create({ workflow: file, cwd: c.ws, inputs: { repo: 'a' } })).id);
    repoB.push((await service.create({ workflow: file, cwd: c.ws, inputs: { repo: 'b' } })).id);
  }
  expect((await c.store.getRun(repoA[0]!))?.concurrency).toEqual([{ key: 'repo:a', limit: 1 }]);
  for (const name of ['w1', 'w2', 'w3', 'w4']) c.startWorker(name);

  // One run of each repo starts; the other four wait, and say why.
  const first = await until(
    'one run of each repo to start',
    async () => {
      const starts = await startsIn(c.ws);
      return starts.some((start) => start.repo === 'a') && starts.some((start) => start.repo === 'b') ? starts : undefined;
    },
    60_000,
  );
  const waitingA = repoA.find((id) => id !== first.find((start) => start.repo === 'a')!.run)!;
  const ps = await runCli(['ps'], { cwd: c.ws, env: c.env });
  expect(ps.code, ps.stderr).toBe(0);
  const row = ps.stdout.split('\n').find((line) => line.startsWith(waitingA));
  expect(row).toMatch(/^\S+\s+queued\s+keyed\s/);
  expect(row).toContain("(waits: concurrency key 'repo:a' is full (1 of 1))");
  const inspect = await runCli(['inspect', waitingA, '--json'], { cwd: c.ws, env: c.env });
  expect(JSON.parse(inspect.stdout)).toMatchObject({
    status: 'queued',
    concurrency: [{ key: 'repo:a', limit: 1 }],
    waitingFor: [{ key: 'repo:a', limit: 1, held: 1 }],
  });

  // The holder of repo:a dies with its worker (SIGKILL, its stage's process group too): the
  // slot is freed when its lease runs out, and repo:a goes on on another worker.
  const crashed = first.find((start) => start.repo === 'a')!;
  const victim = c.workers.find((worker) => worker.name === crashed.worker)!;
  const stagePid = Number((await readLines(join(c.ws, `pid-${crashed.run}`)))[0]);
  victim.child.kill('SIGKILL');
  try {
    process.kill(-stagePid, 'SIGKILL');
  } catch {
    process.kill(stagePid, 'SIGKILL');
  }
  await until('the worker and its stage to die', async () =>
    (await isAlive(victim.child.pid!)) || (await isAlive(stagePid)) ? undefined : true,
  );

  // From here on, release each repo's runs one at a time, each only after it started.
  const released = new Set<string>();
  const done = new Set<string>();
  await until(
    'every run to succeed',
    async () => {
      for (const start of await startsIn(c.ws)) {
        if (start.run === crashed.run && start.worker === crashed.worker) continue;
        if (!released.has(start.run)) {
          released.add(start.run);
          await writeFile(join(c.ws, `release-${start.run}`), '');
        }
      }
      for (const id of [...repoA, ...repoB]) if ((await c.store.getRun(id))?.status === 'succeeded') done.add(id);
      return done.size === 6 ? true : undefined;
    },
    90_000,
  );

  // No stage ever found a live holder of its key that was another run (a run taken over
  // from a runner that missed its heartbeat may overlap itself until that runner stops it:
  // the lease rules, not the key's); every run started, the crashed one again after its
  // lease ran out, never on the dead worker after it died.
  const overlaps = (await readLines(join(c.ws, 'overlaps.txt'))).map((line) => line.split(' '));
  expect(overlaps.filter(([, run, holder]) => run !== holder)).toEqual([]);
  const starts = await startsIn(c.ws);
  expect(new Set(starts.filter((start) => start.repo === 'a').map((start) => start.run))).toEqual(new Set(repoA));
  expect(new Set(starts.filter((start) => start.repo === 'b').map((start) => start.run))).toEqual(new Set(repoB));
  expect(starts.filter((start) => start.run === crashed.run).length).toBeGreaterThanOrEqual(2);
  expect(starts.filter((start) => start.worker === crashed.worker)).toHaveLength(
    first.filter((start) => start.worker === crashed.worker).length,
  );
  expect((await readdir(c.ws)).filter((name) => name.startsWith('lock-'))).toEqual([]);
}

describe('concurrency keys across workers', () => {
  let current: Cluster | undefined;
  afterEach(async () => {
    await current?.dispose();
    current = undefined;
  });

  describe('on PostgreSQL (four hosts)', () => {
    let url: string;
    beforeAll(async () => {
      url = await (await testPostgres()).createDatabase();
    });
    afterAll(async () => (await testPostgres()).dispose());

    it('run one run per key at a time, say why the others wait, and free a SIGKILLed worker’s slot after its lease', async () => {
      current = await cluster('postgres', url);
      await keysAcrossWorkers(current);
    });
  });

  describe('on SQLite (four worker processes, one storage dir)', () => {
    it('run one run per key at a time, say why the others wait, and free a SIGKILLed worker’s slot after its lease', async () => {
      current = await cluster('sqlite');
      await keysAcrossWorkers(current);
    });
  });
});
