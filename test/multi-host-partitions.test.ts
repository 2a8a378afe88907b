/**
 * Workers on separate "hosts" — network namespaces joined by a bridge, PostgreSQL on a
 * host of its own — with the network failing between them (test/helpers/netns.ts). A
 * client creates runs through `weft serve --no-worker`'s HTTP API. Scenario 1: a worker
 * cut off from PostgreSQL mid-stage for longer than its lease; another host takes the run
 * over, and once the link is back the cut-off worker's late append is refused. Scenario 2:
 * a cut shorter than a lease is ridden out. Each ends with an invariant check over the
 * whole event log. Recovery times are printed (docs/multi-host.md, "Tested failures").
 */
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresRunStore } from '../src/runs/store/postgres/postgres-run-store.js';
import { isAlive, readLines, stopProcesses, until } from './fixtures/workflows-e2e/harness.js';
import { allEvents, expectSoundLog } from './helpers/pg-workers.js';
import { canCreateNamespaces, createTestNet, type TestNet } from './helpers/netns.js';
import { startPgHost, type PgHost } from './helpers/pg-host.js';
import { WEFT_BIN } from './helpers/run-cli.js';
import { runNode } from './helpers/run-node.js';
import { TEST_TOKEN } from './helpers/serve-kit.js';
import { listeningUrl } from './helpers/listening-url.js';

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
echo "$$ $WORKER_NAME" >> hold-starts.txt
while [ ! -f release.marker ]; do sleep 0.05; done
echo "hold $WORKER_NAME" >> trail.txt
'''
next = "two"

[nodes.two]
kind = "command"
run = 'echo two >> trail.txt'
`;

let net: TestNet | undefined;
let pgHost: PgHost | undefined;
let url = '';
let store: PostgresRunStore | undefined;
let api: { child: ChildProcess; url: string; output: () => string } | undefined;
let base = '';
let workers: { name: string; child: ChildProcess; stderr: () => string }[] = [];

beforeAll(async () => {
  if (!(await canCreateNamespaces())) throw new Error('These tests need root and `ip netns` (iproute2) to create network namespaces.');
  net = await createTestNet(['pg', 'api', 'w1', 'w2']);
  pgHost = await startPgHost(net);
  url = pgHost.url;
  store = await PostgresRunStore.open({ url });
}, 120_000);

afterAll(async () => {
  await store?.close().catch(() => undefined);
  await pgHost?.close();
  await net?.dispose();
}, 60_000);

/** PostgreSQL's view of its sessions: who is in a transaction, holding what (for a failure's message). */
async function sessions(): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query(
      'SELECT client_addr, state, now() - xact_start AS in_xact, left(query, 120) AS query FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows.map((row) => JSON.stringify(row)).join('\n');
  } catch (error) {
    return String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** How many sessions from `address` are listening for the store's change notices. */
async function listeners(address: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND host(client_addr) = $1 AND query LIKE 'LISTEN%'",
      [address],
    );
    return (rows[0] as { n: number }).n;
  } finally {
    await client.end();
  }
}

/** `until`, and on a timeout the hosts' output with it (what a failure here needs to be understood). */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  try {
    return await until(what, probe, timeoutMs);
  } catch (error) {
    const output = workers.map((worker) => `--- ${worker.name} (pid ${worker.child.pid}):\n${worker.stderr().slice(-3000)}`).join('\n');
    throw new Error(`${(error as Error).message}\n${output}\n--- sessions:\n${await sessions()}`, { cause: error });
  }
}

afterEach(async () => {
  await stopProcesses(workers.map((worker) => worker.child.pid!).filter(Boolean));
  workers = [];
  if (api) await stopProcesses([api.child.pid!]);
  api = undefined;
  if (base) await rm(base, { recursive: true, force: true });
});

/**
 * The client's API host: `weft serve --no-worker` in a namespace of its own. It executes
 * nothing (no worker, no detached runners): the runs it creates go to the worker hosts;
 * the tests partition whichever worker holds the run.
 */
async function startApi(ws: string, home: string, leaseMs: number): Promise<void> {
  const address = net!.hosts.get('api')!.address;
  const env = {
    ...process.env,
    WEFT_HOME: home,
    WEFT_DATABASE_URL: url,
    WEFT_LEASE_MS: String(leaseMs),
    WORKER_NAME: 'api',
    WEFT_TEST_TOKEN: TEST_TOKEN,
    WEFT_MCP_TOKEN: '',
  };
  const child = net!.spawnIn(
    'api',
    process.execPath,
    [WEFT_BIN, '--cwd', ws, 'serve', '--host', address, '--port', '0', '--token-env', 'WEFT_TEST_TOKEN', '--no-worker'],
    { cwd: ws, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const { url: apiUrl, output } = await listeningUrl(child);
  api = { child, url: apiUrl, output };
}

async function setUp(leaseMs: number): Promise<{ ws: string }> {
  base = await mkdtemp(join(tmpdir(), 'weft-partition-'));
  const ws = join(base, 'ws');
  await mkdir(ws);
  await writeFile(join(ws, 'hold.toml'), HOLD);
  await startApi(ws, join(base, 'host-api'), leaseMs);
  for (const name of ['w1', 'w2']) {
    const env = {
      ...process.env,
      WEFT_HOME: join(base, `host-${name}`),
      WEFT_DATABASE_URL: url,
      WEFT_LEASE_MS: String(leaseMs),
      WORKER_NAME: name,
    };
    const child = net!.spawnIn(name, process.execPath, [WEFT_BIN, '--cwd', ws, 'worker', '--max-parallel', '4'], {
      cwd: ws,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    workers.push({ name, child, stderr: () => stderr });
  }
  return { ws };
}

/** Creates a run over the API host's HTTP API, from the client host. */
async function createRun(): Promise<string> {
  const response = await fetch(`${api!.url}/api/v1/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ workflow: 'hold.toml', auto_approve: true }),
  });
  const body = (await response.json()) as { run: { id: string } };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body.run.id;
}

/** The process of the host holding the run's lease (a worker, or a detached runner of the API host). */
function holderHost(workerId: string | undefined, startedBy: string): string {
  expect(workerId, 'the run has a lease').toBeDefined();
  return startedBy === 'api' ? 'api' : startedBy;
}

async function holdStarts(ws: string): Promise<{ pid: number; worker: string }[]> {
  return (await readLines(join(ws, 'hold-starts.txt'))).map((line) => {
    const [pid, worker] = line.split(' ');
    return { pid: Number(pid), worker: worker ?? '' };
  });
}

describe('workers on separate hosts, PostgreSQL on its own, the network failing', () => {
  it('scenario 1: a worker cut off mid-stage past its lease is replaced, and fenced when the link returns', async () => {
    const leaseMs = 2000;
    const { ws } = await setUp(leaseMs);
    const id = await createRun();
    const [first] = await waitFor(
      'hold to start on some host',
      async () => ((await holdStarts(ws)).length === 1 ? holdStarts(ws) : undefined),
      60_000,
    );
    const holder = holderHost((await store!.getRun(id))?.lease?.workerId, first!.worker);

    const cut = Date.now();
    await net!.partition(holder);
    const [, second] = await waitFor(
      'another host to take the run over and start hold again',
      async () => ((await holdStarts(ws)).length === 2 ? holdStarts(ws) : undefined),
      60_000,
    );
    const takeoverMs = Date.now() - cut;
    expect(second!.worker).not.toBe(holder);

    const healed = Date.now();
    await net!.heal(holder);
    // Back on the network, the cut-off host learns it lost the run (its renewal or its late append is refused)
    // and stops the stage's process itself: the host that took over cannot reach a process on another machine.
    await waitFor("the cut-off host's hold process to end", async () => ((await isAlive(first!.pid)) ? undefined : true), 60_000);
    const fencedMs = Date.now() - healed;
    const output =
      holder === 'api'
        ? await readFile(join(base, 'host-api', 'logs', 'runner.log'), 'utf8').catch(() => '')
        : workers.find((worker) => worker.name === holder)!.stderr();
    // (While cut off it may also have logged that it could not renew: that is not the refusal.)
    const refusal = output
      .split('\n')
      .find((line) => line.includes(`run ${id}`) && /lease lost|lost its lease|refused|leased by runner/.test(line));
    expect(refusal, `${holder}'s output:\n${output.slice(-2000)}`).toBeDefined();

    await writeFile(join(ws, 'release.marker'), '');
    await waitFor('the run to succeed', async () => ((await store!.getRun(id))?.status === 'succeeded' ? true : undefined), 60_000);
    expect(await readFile(join(ws, 'trail.txt'), 'utf8')).toBe(`one\nhold ${second!.worker}\ntwo\n`);
    expectSoundLog(await allEvents(store!, id), ['one@1 succeeded', 'hold@1 abandoned', 'hold@2 succeeded', 'two@1 succeeded']);
    console.log(
      `partition of ${holder} past the lease (${leaseMs} ms): taken over after ${takeoverMs} ms; its stage stopped ${fencedMs} ms after the link returned (${refusal!.trim()})`,
    );
  }, 240_000);

  it('scenario 2: a cut shorter than the lease is ridden out, nothing is taken over', async () => {
    const leaseMs = 8000;
    const { ws } = await setUp(leaseMs);
    const id = await createRun();
    const [first] = await waitFor(
      'hold to start on some host',
      async () => ((await holdStarts(ws)).length === 1 ? holdStarts(ws) : undefined),
      60_000,
    );
    const lease = (await store!.getRun(id))?.lease;
    const holder = holderHost(lease?.workerId, first!.worker);

    await net!.partition(holder);
    // The fault lasts a quarter of the lease: its duration, not a wait for something to happen.
    await new Promise((resolve) => setTimeout(resolve, leaseMs / 4));
    const healed = Date.now();
    await net!.heal(holder);
    const renewed = await waitFor(
      'the holder to renew its lease after the cut',
      async () => {
        const now = (await store!.getRun(id))?.lease;
        // A renewal from before the cut expires by cut + lease = healed + ¾ lease at the latest: later means renewed since.
        return now && now.workerId === lease!.workerId && now.expiresAt > healed + (leaseMs * 3) / 4 ? true : undefined;
      },
      30_000,
    );
    const renewedMs = Date.now() - healed;
    expect(renewed).toBe(true);

    await writeFile(join(ws, 'release.marker'), '');
    await waitFor('the run to succeed', async () => ((await store!.getRun(id))?.status === 'succeeded' ? true : undefined), 60_000);
    expect((await holdStarts(ws)).map((start) => start.worker)).toEqual([first!.worker]);
    expect(await readFile(join(ws, 'trail.txt'), 'utf8')).toBe(`one\nhold ${first!.worker}\ntwo\n`);
    expectSoundLog(await allEvents(store!, id), ['one@1 succeeded', 'hold@1 succeeded', 'two@1 succeeded']);
    console.log(
      `partition of ${holder} for ${leaseMs / 4} ms (lease ${leaseMs} ms): ridden out, lease renewed ${renewedMs} ms after the link returned`,
    );
  }, 240_000);

  it('scenario 3: PostgreSQL restarted under load: workers, a waiter and logs --follow on the client host recover without a restart', async () => {
    const leaseMs = 10_000;
    const { ws } = await setUp(leaseMs);
    const ids = [await createRun(), await createRun()];
    await waitFor('both hold stages to start', async () => ((await holdStarts(ws)).length === 2 ? true : undefined), 60_000);
    // The client host: a waiter and a follower, as a script or a person at a terminal would run them.
    const client = { WEFT_HOME: join(base, 'host-client'), WEFT_DATABASE_URL: url };
    const listening = await listeners(net!.rootAddress);
    const waiter = runNode([WEFT_BIN, '--cwd', ws, 'wait', ...ids], { cwd: ws, env: { ...process.env, ...client } });
    const follower = runNode([WEFT_BIN, '--cwd', ws, 'logs', '--follow', '--json', ids[0]!], {
      cwd: ws,
      env: { ...process.env, ...client },
    });

    await waitFor(
      'the waiter and the follower to listen for changes',
      async () => ((await listeners(net!.rootAddress)) >= listening + 2 ? true : undefined),
      30_000,
    );
    await pgHost!.command('stop');
    // Down for a while (the fault's length, shorter than the lease), then back.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await pgHost!.command('start');
    const back = Date.now();
    await writeFile(join(ws, 'release.marker'), '');

    const waited = await waiter;
    const waitRecoveredMs = Date.now() - back;
    expect(waited.code, waited.stderr).toBe(0);
    const followed = await follower;
    expect(followed.code, followed.stderr).toBe(0);
    for (const id of ids) {
      expect((await store!.getRun(id))?.status).toBe('succeeded');
      expectSoundLog(await allEvents(store!, id), ['one@1 succeeded', 'hold@1 succeeded', 'two@1 succeeded']);
    }
    // The follower saw every event of its run, none twice, none missing, across the restart.
    const seqs = followed.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { seq: number }).seq);
    expect(seqs).toEqual((await allEvents(store!, ids[0]!)).map((event) => event.seq));
    console.log(
      `PostgreSQL down 3000 ms under ${ids.length} running runs: the waiter learned both ended ${waitRecoveredMs} ms after the server was back (stages released at that moment)`,
    );
  }, 240_000);
});
