/**
 * Model limits across worker processes on both stores: four `weft worker` processes
 * (separate homes on PostgreSQL, as separate hosts; one storage dir on SQLite) run prompt
 * stages against the fake model server under `[llm.limits."openai-compatible:*"]
 * concurrent = 2`. The server holds every answer: the oldest held one goes only once two
 * are held and a third stage is known to be calling (its agent started, no turn yet), so
 * an overlap the limit failed to stop would be real — and the server counts the most it
 * held at once. Midway, the worker behind a held call is SIGKILLed: its slot frees when
 * its lease runs out, and two calls are held again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RunService } from '../src/app/services/run-service.js';
import { runnerProcess } from '../src/runs/engine/runner-id.js';
import type { RunStore } from '../src/runs/store/run-store.js';
import { PostgresRunStore } from '../src/runs/store/postgres/postgres-run-store.js';
import { SqliteRunStore } from '../src/runs/store/sqlite/sqlite-run-store.js';
import { startModelServer, type ModelServer, type ScriptOutcome } from './fixtures/model-server/model-server.js';
import { isAlive, stopProcesses, until } from './fixtures/workflows-e2e/harness.js';
import { testPostgres } from './helpers/postgres.js';
import { runCli, WEFT_BIN } from './helpers/run-cli.js';

vi.setConfig({ testTimeout: 180_000 });

const RUNS = 6;
const WORKFLOW = `
[workflow]
name = "limited"

[run]
auto_approve = true

[nodes.hello]
kind = "prompt"
prompt = "Say hi for {{ run.id }}."
`;

/** The model server's side: answers held until the test lets each go, and the most ever held at once. */
class HeldAnswers {
  readonly held: { runId: string; release: () => void }[] = [];
  arrived = 0;
  maxHeld = 0;

  answer(runId: string): Promise<ScriptOutcome> {
    this.arrived += 1;
    return new Promise((resolve) => {
      this.held.push({ runId, release: () => resolve({ text: `hi ${runId}`, usage: { input: 10, output: 5 } }) });
      this.maxHeld = Math.max(this.maxHeld, this.held.length);
    });
  }

  releaseOldest(): void {
    this.held.shift()?.release();
  }

  /** Drops (and answers into the void) the held calls of these runs: their worker died. */
  drop(runIds: ReadonlySet<string>): number {
    const dropped = this.held.filter((entry) => runIds.has(entry.runId));
    for (const entry of dropped) this.held.splice(this.held.indexOf(entry), 1);
    for (const entry of dropped) entry.release();
    return dropped.length;
  }
}

interface Cluster {
  ws: string;
  store: RunStore;
  env: Record<string, string>;
  workers: ChildProcess[];
  dispose(): Promise<void>;
}

async function cluster(kind: 'postgres' | 'sqlite', server: ModelServer, url?: string): Promise<Cluster> {
  const base = await mkdtemp(join(tmpdir(), `weft-mlimits-${kind}-`));
  const ws = join(base, 'ws');
  const shared = join(base, 'home');
  await mkdir(join(ws, '.weft'), { recursive: true });
  await mkdir(shared);
  await writeFile(
    join(ws, '.weft', 'settings.toml'),
    `[llm]\nprovider = "openai-compatible"\nbase_url = "${server.baseUrl('openai-chat')}"\nmodel = "m"\nmax_retries = 0\n\n[llm.limits."openai-compatible:*"]\nconcurrent = 2\n`,
  );
  const store: RunStore =
    kind === 'postgres' ? await PostgresRunStore.open({ url: url! }) : await SqliteRunStore.open({ storageDir: shared });
  const env: Record<string, string> =
    kind === 'postgres' ? { WEFT_DATABASE_URL: url!, WEFT_HOME: join(base, 'reader') } : { WEFT_HOME: shared };
  const workers: ChildProcess[] = [];
  for (const name of ['w1', 'w2', 'w3', 'w4']) {
    workers.push(
      spawn(process.execPath, [WEFT_BIN, '--cwd', ws, 'worker', '--max-parallel', '8'], {
        cwd: ws,
        env: { ...process.env, ...env, WEFT_HOME: kind === 'postgres' ? join(base, `host-${name}`) : shared, WEFT_LEASE_MS: '1000' },
        stdio: ['ignore', 'ignore', 'ignore'],
      }),
    );
  }
  return {
    ws,
    store,
    env,
    workers,
    async dispose() {
      await stopProcesses(workers.map((worker) => worker.pid).filter((pid): pid is number => pid !== undefined));
      await store.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** Runs whose current attempt's agent started and made no turn yet: each is calling the model (held, or waiting for a slot). */
async function calling(store: RunStore, ids: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const id of ids) {
    const run = await store.getRun(id);
    if (run === undefined || run.status !== 'running') continue;
    const events = await store.listEvents(id, { limit: 1000 });
    const lastStart = events.findLastIndex((event) => event.type === 'agent-started');
    if (lastStart >= 0 && !events.slice(lastStart).some((event) => event.type === 'model-turn-finished' || event.type === 'stage-finished'))
      found.push(id);
  }
  return found;
}

async function limitAcrossWorkers(kind: 'postgres' | 'sqlite', url?: string): Promise<Cluster> {
  const answers = new HeldAnswers();
  const server = await startModelServer({
    script: (request) =>
      answers.answer(/for (\S+)\./.exec(request.messages.map((message) => ('text' in message ? message.text : '')).join(' '))?.[1] ?? '?'),
  });
  const c = await cluster(kind, server, url);
  const dispose = c.dispose;
  c.dispose = async () => {
    for (const entry of [...answers.held]) entry.release();
    await dispose();
    await server.close();
  };
  const file = join(c.ws, 'limited.toml');
  await writeFile(file, WORKFLOW);
  const service = new RunService({ store: c.store, clock: Date.now, wakeRunners: () => undefined });
  const ids: string[] = [];
  for (let index = 0; index < RUNS; index += 1) ids.push((await service.create({ workflow: file, cwd: c.ws })).id);

  // Two calls held and a third stage calling: the limit holds it back.
  await until(
    'two calls held and a third calling',
    async () => (answers.held.length >= 2 && (await calling(c.store, ids)).length > answers.held.length ? true : undefined),
    60_000,
  );
  expect(answers.held.length).toBe(2);

  // The worker behind the oldest held call dies: its slot frees when its lease runs out,
  // and the stage that waited gets it (two held again). Its run is taken over and calls again.
  const victimRun = answers.held[0]!.runId;
  const owner = (await c.store.getRun(victimRun))?.lease?.workerId;
  const victim = c.workers.find((worker) => worker.pid === runnerProcess(owner ?? '')?.pid)!;
  expect(victim).toBeDefined();
  const victimRuns = new Set<string>();
  for (const id of ids) if ((await c.store.getRun(id))?.lease?.workerId === owner) victimRuns.add(id);
  victim.kill('SIGKILL');
  // Its connections die with it: dropped before this process reads any new request.
  const lost = answers.drop(victimRuns);
  await until('the worker to die', async () => ((await isAlive(victim.pid!)) ? undefined : true));
  const arrivedBefore = answers.arrived;
  await until('two calls held again', async () => (answers.held.length >= 2 && answers.arrived > arrivedBefore ? true : undefined), 60_000);

  // Let the rest go: the oldest held call once a third stage calls, all of them once every call came.
  const total = RUNS + lost;
  await until(
    'every run to succeed',
    async () => {
      const statuses = await Promise.all(ids.map(async (id) => (await c.store.getRun(id))?.status));
      if (statuses.every((status) => status === 'succeeded')) return true;
      if (answers.arrived >= total) while (answers.held.length > 0) answers.releaseOldest();
      else if (answers.held.length >= 2 && (await calling(c.store, ids)).length > answers.held.length) answers.releaseOldest();
      return undefined;
    },
    120_000,
    50,
  );

  expect(answers.maxHeld).toBe(2);
  // Every run called once, the dropped ones again; a run of the dead worker whose answer was on its way when it died may call again too.
  expect(answers.arrived).toBeGreaterThanOrEqual(total);
  const throttled = [];
  for (const id of ids) {
    const events = await c.store.listEvents(id, { limit: 1000 });
    throttled.push(...events.filter((event) => event.type === 'model-call-throttled').map((event) => ({ run: id, ...event.payload })));
    // Waiting is not retrying: no retried request, and no stage retried.
    expect(events.filter((event) => event.type === 'model-request-retried')).toEqual([]);
  }
  expect(throttled.length).toBeGreaterThanOrEqual(1);
  for (const entry of throttled)
    expect(entry).toMatchObject({
      turn: 1,
      model: 'openai-compatible:m',
      pattern: 'openai-compatible:*',
      limit: 'concurrent',
      waitedMs: expect.any(Number),
    });
  const logs = await runCli(['logs', throttled[0]!.run], { cwd: c.ws, env: c.env });
  expect(logs.stdout).toMatch(/⏳ openai-compatible:m waited \S+ for \[llm\.limits\."openai-compatible:\*"\] concurrent/);
  return c;
}

describe('model limits across workers', () => {
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

    it('never hold more than two calls in flight, record the waits, and free a SIGKILLed worker’s slot after its lease', async () => {
      current = await limitAcrossWorkers('postgres', url);
    });
  });

  describe('on SQLite (four worker processes, one storage dir)', () => {
    it('never hold more than two calls in flight, record the waits, and free a SIGKILLed worker’s slot after its lease', async () => {
      current = await limitAcrossWorkers('sqlite');
    });
  });
});
