// The PostgreSQL RunStore: the shared contract against a real server, plus what only it has (migrations under a lock, fencing across stores, masked URLs).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../../core/errors.js';
import type { StoreChange } from '../run-store.js';
import { runRunStoreContract } from '../../../../test/contract/run-store.contract.js';
import { testPostgres } from '../../../../test/helpers/postgres.js';
import { migratePostgres, PG_MIGRATIONS, PG_SCHEMA_VERSION } from './migrations.js';
import { PostgresRunStore } from './postgres-run-store.js';
import { SqliteRunStore, type ImportedRun } from '../sqlite/sqlite-run-store.js';

let url: string;
beforeAll(async () => {
  url = await (await testPostgres()).createDatabase();
});
afterAll(async () => (await testPostgres()).dispose());

async function sql<Row extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, params)).rows;
  } finally {
    await client.end();
  }
}

// Each contract test starts from an empty store, as it would with a fresh SQLite file.
beforeEach(async () => {
  const tables = await sql<{ n: number }>("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'runs'");
  if (tables[0]?.n === 1) await sql('TRUNCATE runs, events, questions, mcp_servers, artifacts');
});

runRunStoreContract('postgres', ({ clock, newId }) => PostgresRunStore.open({ url, clock, newId }));

const params = { workflow: 'build', workflowPath: 'build.toml', cwd: '/work' };

/** The store's next change notice from this call on. */
function nextChange(store: PostgresRunStore): Promise<StoreChange> {
  return new Promise((resolve) => {
    const stop = store.watchChanges((change) => {
      stop();
      resolve(change);
    });
  });
}

describe('PostgresRunStore', () => {
  it('migrates once when ten stores open at once, and records the version', async () => {
    const fresh = await (await testPostgres()).createDatabase();
    const stores = await Promise.all(Array.from({ length: 10 }, () => PostgresRunStore.open({ url: fresh, clock: () => 1000 })));
    const client = new pg.Client({ connectionString: fresh });
    await client.connect();
    const versions = (await client.query('SELECT version, applied_at FROM weft_schema_version ORDER BY version')).rows;
    await client.end();
    await Promise.all(stores.map((store) => store.close()));
    expect(versions).toEqual(PG_MIGRATIONS.map((migration) => ({ version: migration.version, applied_at: '1000' })));
    expect(versions.at(-1)).toEqual({ version: PG_SCHEMA_VERSION, applied_at: '1000' });
  });

  it('refuses a database written by a newer weft, naming both versions', async () => {
    const fresh = await (await testPostgres()).createDatabase();
    await (await PostgresRunStore.open({ url: fresh })).close();
    const client = new pg.Client({ connectionString: fresh });
    await client.connect();
    await client.query("INSERT INTO weft_schema_version (version, name, applied_at) VALUES (99, 'future', 0)");
    await client.end();
    const error = await PostgresRunStore.open({ url: fresh }).catch((failure: unknown) => failure);
    expect(WeftError.is(error, 'STORE_FAILED')).toBe(true);
    expect((error as Error).message).toMatch(/schema version 99.*knows up to version 7.*Upgrade weft/);
  });

  it('refuses the append of a runner whose lease another runner took over (fencing), from another store too', async () => {
    let now = 1_000_000;
    const first = await PostgresRunStore.open({ url, clock: () => now });
    const second = await PostgresRunStore.open({ url, clock: () => now });
    try {
      const run = await first.createRun({ ...params, initialStatus: 'queued' });
      await first.claimRun('runner-a', 1000, now);
      await first.appendEvents(run.id, [{ type: 'run-status-changed', payload: { to: 'starting' } }], { leaseOwner: 'runner-a' });
      now += 1001;
      expect((await second.claimRun('runner-b', 1000, now))?.id).toBe(run.id);
      await second.appendEvents(run.id, [{ type: 'log-written', payload: { line: 'b was here' } }], { leaseOwner: 'runner-b' });
      const refused = await first
        .appendEvents(run.id, [{ type: 'log-written', payload: { line: 'late' } }], { leaseOwner: 'runner-a' })
        .catch((error: unknown) => error);
      expect(WeftError.is(refused, 'RUN_LEASE_LOST')).toBe(true);
      expect((await second.listEvents(run.id)).map((event) => event.type)).toEqual([
        'run-created',
        'run-status-changed',
        'run-status-changed',
        'log-written',
      ]);
      // Appends without a lease (answers, cancels from a person) are not fenced.
      await first.appendEvents(run.id, [{ type: 'log-written', payload: { line: 'from a person' } }]);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it("keeps leases on the database's clock, so a claimer whose clock runs ahead takes no live lease over", async () => {
    // Opened without a clock, as weft opens it: the `now` a skewed host passes does not count.
    const holder = await PostgresRunStore.open({ url });
    const skewed = await PostgresRunStore.open({ url });
    try {
      const run = await holder.createRun({ ...params, initialStatus: 'queued' });
      const [{ db }] = (await sql<{ db: string }>('SELECT (extract(epoch FROM statement_timestamp()) * 1000)::bigint AS db')) as [
        { db: string },
      ];
      const claimed = await holder.claimRun('runner-a', 60_000, 0);
      expect(claimed?.lease?.expiresAt).toBeGreaterThanOrEqual(Number(db) + 60_000);
      await holder.appendEvents(
        run.id,
        [
          { type: 'run-status-changed', payload: { to: 'starting' } },
          { type: 'run-status-changed', payload: { to: 'running' } },
        ],
        { leaseOwner: 'runner-a' },
      );
      expect(await skewed.claimRun('runner-b', 60_000, Number(db) + 30 * 60_000)).toBeUndefined();
      expect(await holder.renewLease(run.id, 'runner-a', 60_000)).toBe(true);
      // Expired in database time, it is taken over whatever the claimer's clock says.
      await sql('UPDATE runs SET lease_expires_at = (extract(epoch FROM statement_timestamp()) * 1000)::bigint - 1 WHERE id = $1', [
        run.id,
      ]);
      expect((await skewed.claimRun('runner-b', 60_000, 0))?.lease?.workerId).toBe('runner-b');
    } finally {
      await Promise.all([holder.close(), skewed.close()]);
    }
  });

  it('bulk-imports runs in multi-row batches to exactly what the SQLite store imports', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-pg-import-'));
    const items = (): ImportedRun[] => [
      {
        run: { ...params, id: '01JAAAAAAAAAAAAAAAAAAAAAA1', labels: { team: 'core' } },
        createdAt: 5000,
        events: [{ type: 'run-status-changed', payload: { to: 'queued' }, at: 6000 }],
      },
      {
        run: { ...params, id: '01JAAAAAAAAAAAAAAAAAAAAAA2', parentId: '01JAAAAAAAAAAAAAAAAAAAAAA1' },
        createdAt: 7000,
        events: [
          {
            type: 'question-asked',
            stageId: 'ask@1',
            payload: { questionId: '01JAAAAAAAAAAAAAAAAAAAAAQ1', kind: 'yes_no', prompt: 'ok?' },
            at: 8000,
          },
        ],
      },
      { run: { ...params, id: '01JAAAAAAAAAAAAAAAAAAAAAA3' }, createdAt: 9000 },
    ];
    const sqlite = await SqliteRunStore.open({ storageDir: dir, clock: () => 10_000 });
    const store = await PostgresRunStore.open({ url, clock: () => 10_000 });
    try {
      expect(await store.importRuns(items(), 2)).toBe(3);
      await sqlite.importRuns(items());
      for (const item of items()) {
        const id = item.run.id as string;
        expect(await store.getRun(id)).toEqual(await sqlite.getRun(id));
        expect(await store.listEvents(id)).toEqual(await sqlite.listEvents(id));
        expect(await store.listQuestions(id)).toEqual(await sqlite.listQuestions(id));
      }
      expect((await store.searchRuns({ labels: { team: 'core' } })).runs.map((run) => run.id)).toEqual(['01JAAAAAAAAAAAAAAAAAAAAAA1']);
    } finally {
      await Promise.all([store.close(), sqlite.close()]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('tells a store on another connection which runs were written, through NOTIFY (no safety tick in this test)', async () => {
    const quiet = { safetyTickMs: 10 * 60_000 };
    const writer = await PostgresRunStore.open({ url, ...quiet });
    const watcher = await PostgresRunStore.open({ url, ...quiet });
    try {
      const created = nextChange(watcher);
      const run = await writer.createRun({ ...params, initialStatus: 'queued' });
      expect(await created).toEqual({ kind: 'runs', runs: [{ id: run.id, headSeq: 2, status: 'queued' }], claimable: true });
      const claimed = nextChange(watcher);
      await writer.claimRun('runner-a', 1000);
      expect(await claimed).toEqual({ kind: 'runs', runs: [{ id: run.id, headSeq: 2, status: 'queued' }], claimable: false });
      const appended = nextChange(watcher);
      await writer.appendEvents(run.id, [{ type: 'run-status-changed', payload: { to: 'starting' } }]);
      expect(await appended).toEqual({ kind: 'runs', runs: [{ id: run.id, headSeq: 3, status: 'starting' }], claimable: false });
      const released = nextChange(watcher);
      await writer.releaseLease(run.id, 'runner-a');
      expect(await released).toEqual({ kind: 'runs', runs: [{ id: run.id }], claimable: true });
      const catalogue = nextChange(watcher);
      await writer.putMcpServer('docs', { command: 'docs-server' });
      expect(await catalogue).toEqual({ kind: 'unknown' });
    } finally {
      await Promise.all([writer.close(), watcher.close()]);
    }
  });

  it("deletes a run's events with it (events have no foreign key since schema 3) and only that run's", async () => {
    const store = await PostgresRunStore.open({ url });
    try {
      const [gone, kept] = [await store.createRun(params), await store.createRun(params)];
      for (const run of [gone, kept])
        await store.appendEvents(run.id, [
          { type: 'log-written', payload: { text: 'hello' } },
          { type: 'run-status-changed', payload: { to: 'cancelled', reason: 'user' } },
        ]);
      await store.deleteRun(gone.id);
      const counts = await sql<{ run_id: string; n: number }>(
        'SELECT run_id, count(*)::int AS n FROM events WHERE run_id = ANY($1::text[]) GROUP BY run_id',
        [[gone.id, kept.id]],
      );
      expect(counts).toEqual([{ run_id: kept.id, n: 3 }]);
      // The id is free again: a run copied in under it starts a fresh log.
      await store.copyRun(gone.id, [
        { type: 'run-created', payload: { ...params, goal: '', inputs: {}, labels: {}, autoApprove: false, dryRun: false } },
      ]);
      expect((await store.listEvents(gone.id)).map((event) => event.seq)).toEqual([1]);
    } finally {
      await store.close();
    }
  });

  it('lists the runs a schema-2 database held as changed after migrating to schema 3 (found by their change span)', async () => {
    const fresh = await (await testPostgres()).createDatabase();
    const client = new pg.Client({ connectionString: fresh });
    await client.connect();
    try {
      await migratePostgres(client, fresh, 1000, PG_MIGRATIONS.slice(0, 2));
      const run = (id: string, updatedAt: number) => [
        id,
        'build',
        'succeeded',
        1000,
        updatedAt,
        1,
        JSON.stringify({ id }),
        JSON.stringify({ status: 'succeeded', updatedAt }),
      ];
      for (const values of [
        run('01J0000000000000000000000A', 5000),
        run('01J0000000000000000000000B', 3000),
        run('01J0000000000000000000000C', 1000),
      ]) {
        await client.query(
          'INSERT INTO runs (id, workflow, status, created_at, updated_at, head_seq, spec, state) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
          values,
        );
      }
    } finally {
      await client.end();
    }
    const store = await PostgresRunStore.open({ url: fresh });
    try {
      const page = await store.listRunsUpdatedAfter({ updatedAt: 2000, id: '' });
      expect(page.runs.map((listed) => [listed.id, listed.updatedAt])).toEqual([
        ['01J0000000000000000000000B', 3000],
        ['01J0000000000000000000000A', 5000],
      ]);
    } finally {
      await store.close();
    }
  });

  it('tells its own listeners of its writes once, at commit, not again when the server echoes the NOTIFY', async () => {
    const store = await PostgresRunStore.open({ url, safetyTickMs: 10 * 60_000 });
    const other = await PostgresRunStore.open({ url, safetyTickMs: 10 * 60_000 });
    try {
      const heard: StoreChange[] = [];
      const stop = store.watchChanges((change) => heard.push(change));
      const created = nextChange(store);
      const run = await store.createRun({ ...params, initialStatus: 'queued' });
      await created;
      // The other store's write comes after the echo of this one's (one NOTIFY at a time, in order on the server).
      const echoedBefore = nextChange(store);
      await other.putMcpServer('docs', { command: 'docs-server' });
      await echoedBefore;
      stop();
      expect(heard).toEqual([{ kind: 'runs', runs: [{ id: run.id, headSeq: 2, status: 'queued' }], claimable: true }, { kind: 'unknown' }]);
    } finally {
      await Promise.all([store.close(), other.close()]);
    }
  });

  it('masks the password in every failure that names the server', async () => {
    const port = new URL(url).port;
    const error = await PostgresRunStore.open({ url: `postgres://postgres:hunter2-secret@127.0.0.1:${port}/no_such_db_here` }).catch(
      (failure: unknown) => failure,
    );
    expect(WeftError.is(error, 'STORE_FAILED')).toBe(true);
    const text = `${(error as Error).message} ${JSON.stringify((error as WeftError).data)}`;
    expect(text).toContain('postgres://postgres:***@127.0.0.1');
    expect(text).not.toContain('hunter2');
  });
});
