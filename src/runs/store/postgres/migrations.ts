/**
 * The PostgreSQL schema as ordered migrations, recorded in `weft_schema_version` and
 * applied at open under a transaction-scoped advisory lock, so ten workers starting at
 * once migrate once (the others wait on the lock, then find nothing left to do). Append
 * new migrations; never edit an applied one. Stores announce their writes on the
 * `weft_changes` channel (see pg-statements.ts), which is how other hosts learn that the
 * store changed.
 */
import type pg from 'pg';
import { pgStoreFailed } from './pg-errors.js';
import { PRIORITY_STEP_MS } from '../../model/run-record.js';

export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

export const CHANGE_CHANNEL = 'weft_changes';
/** The span of `runs.change_span` (schema 3): a run's row moves in its index at most once per span. Never change it: it is in the schema. */
export const CHANGE_SPAN_MS = 1_000;
/** Any 64-bit number unique to weft's schema; the lock is scoped to the migrating transaction. */
const MIGRATION_LOCK = 0x77656674_0001;

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: 'runs (spec + projected state + lease), events, questions, MCP server catalogue, artifacts, change notices',
    sql: `
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        workflow TEXT NOT NULL,
        status TEXT NOT NULL,
        archived SMALLINT NOT NULL DEFAULT 0,
        parent_id TEXT REFERENCES runs(id),
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        head_seq INTEGER NOT NULL,
        lease_owner TEXT,
        lease_expires_at BIGINT NOT NULL DEFAULT 0,
        labels JSONB NOT NULL DEFAULT '{}',
        spec TEXT NOT NULL,
        state TEXT NOT NULL
      );
      CREATE INDEX runs_by_created ON runs (archived, created_at DESC, id DESC);
      CREATE INDEX runs_by_status ON runs (status, created_at DESC, id DESC);
      CREATE INDEX runs_by_parent ON runs (parent_id, created_at DESC, id DESC);
      CREATE INDEX runs_by_workflow ON runs (workflow, created_at DESC, id DESC);
      CREATE INDEX runs_by_labels ON runs USING gin (labels jsonb_path_ops);
      CREATE INDEX runs_queued ON runs (created_at, id) WHERE status = 'queued';
      CREATE INDEX runs_orphaned ON runs (lease_expires_at, created_at, id) WHERE status IN ('starting', 'running', 'blocked');

      CREATE TABLE events (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        at BIGINT NOT NULL,
        type TEXT NOT NULL,
        stage_id TEXT,
        payload TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      );

      CREATE TABLE questions (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        status TEXT NOT NULL,
        asked_at BIGINT NOT NULL,
        record TEXT NOT NULL
      );
      CREATE INDEX questions_by_run ON questions (run_id, asked_at, id);

      CREATE TABLE mcp_servers (
        name TEXT PRIMARY KEY,
        config TEXT NOT NULL,
        updated_at BIGINT NOT NULL
      );

      CREATE TABLE artifacts (
        id TEXT PRIMARY KEY,
        run_id TEXT REFERENCES runs(id) ON DELETE CASCADE,
        label TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        content TEXT NOT NULL
      );
    `,
  },
  {
    // The live runs list (\`listRunsUpdatedAfter\`) walks runs in the order they changed.
    version: 2,
    name: 'runs by update time',
    sql: 'CREATE INDEX runs_by_updated ON runs (updated_at, id)',
  },
  {
    // Every append rewrites its run's row. Indexing updated_at (version 2) made each such
    // update write a new entry into every index of runs (eight, one a GIN); with no indexed
    // column changing and room left on the page, PostgreSQL updates the row in place (HOT)
    // and touches no index. So the live runs list finds changed runs by a coarse change
    // time, the one-second span of updated_at, which a run's appends change once per span;
    // the list then reads the few runs of the spans it needs. Pages keep a fifth free for
    // the in-place updates (the new column rewrites the table, so all of them at once).
    // Events lose their foreign key: its check, one query per inserted event, was a quarter
    // of an append's time in the database. Every write inserts events only for the runs the
    // same statement inserted or updated, and deleting a run deletes its events after it.
    version: 3,
    name: 'runs updated in place: changed runs found by their one-second change span; events without a per-row key check',
    sql: `
      DROP INDEX runs_by_updated;
      ALTER TABLE runs SET (fillfactor = 80);
      ALTER TABLE runs ADD COLUMN change_span BIGINT GENERATED ALWAYS AS (updated_at / ${CHANGE_SPAN_MS}) STORED;
      CREATE INDEX runs_by_change_span ON runs (change_span);
      ALTER TABLE events DROP CONSTRAINT events_run_id_fkey;
    `,
  },
  {
    // Runs have a priority, kept in the spec: queued runs are claimed by their creation time
    // moved earlier by it (PRIORITY_STEP_MS a step, see run-record.ts). A generated column,
    // so no insert path has to know about it.
    version: 4,
    name: 'run priority: queued runs claimed by creation time moved earlier by priority',
    sql: `
      ALTER TABLE runs ADD COLUMN claim_at BIGINT GENERATED ALWAYS AS (created_at - COALESCE((spec::jsonb ->> 'priority')::bigint, 0) * ${PRIORITY_STEP_MS}) STORED;
      CREATE INDEX runs_by_claim ON runs (status, claim_at, id);
    `,
  },
  {
    // A run's resolved concurrency keys (`[{ key, limit }]`, NULL for none), generated from
    // its spec so no insert path has to know about them; the claim counts a key's holders
    // among the leased runs that carry keys (a small partial index) without parsing specs.
    version: 5,
    name: 'run concurrency keys',
    sql: `
      ALTER TABLE runs ADD COLUMN concurrency JSONB GENERATED ALWAYS AS (spec::jsonb -> 'concurrency') STORED;
      CREATE INDEX runs_holding_keys ON runs (lease_expires_at) WHERE concurrency IS NOT NULL AND lease_owner IS NOT NULL;
    `,
  },
  {
    // Schedules and webhook triggers (docs/schedules.md): as SQLite's migration 6.
    version: 6,
    name: 'schedules (next due time, fires) and webhook triggers (deliveries)',
    sql: `
      CREATE TABLE schedules (
        name TEXT PRIMARY KEY,
        spec TEXT NOT NULL,
        paused SMALLINT NOT NULL DEFAULT 0,
        next_due BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX schedules_by_due ON schedules (paused, next_due);
      CREATE TABLE schedule_fires (
        schedule TEXT NOT NULL,
        due_at BIGINT NOT NULL,
        run_id TEXT NOT NULL,
        state TEXT NOT NULL,
        claimed_by TEXT NOT NULL,
        claimed_at BIGINT NOT NULL,
        PRIMARY KEY (schedule, due_at)
      );
      CREATE INDEX schedule_fires_by_state ON schedule_fires (state, claimed_at);
      CREATE TABLE triggers (
        name TEXT PRIMARY KEY,
        spec TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );
      CREATE TABLE trigger_deliveries (
        trigger_name TEXT NOT NULL,
        delivery_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        received_at BIGINT NOT NULL,
        PRIMARY KEY (trigger_name, delivery_id)
      );
    `,
  },
  {
    // Model limits (`[llm.limits]`): as SQLite's migration 7.
    version: 7,
    name: 'model limits (calls per pool: slots and rate windows)',
    sql: `
      CREATE TABLE model_calls (
        pool TEXT NOT NULL,
        call_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        lease_owner TEXT NOT NULL,
        started_at BIGINT NOT NULL,
        ended_at BIGINT,
        tokens BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (pool, call_id)
      );
      CREATE INDEX model_calls_by_start ON model_calls (pool, started_at);
      CREATE INDEX model_calls_by_end ON model_calls (pool, ended_at);
      CREATE INDEX model_calls_by_call ON model_calls (call_id);
    `,
  },
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]?.version ?? 0;

/** Applies the migrations the database lacks, once across every process; returns the versions applied. */
export async function migratePostgres(
  client: pg.ClientBase,
  database: string,
  now: number,
  migrations: readonly PgMigration[] = PG_MIGRATIONS,
): Promise<number[]> {
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS weft_schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
    );
    const current = Number(
      (await client.query<{ version: number | null }>('SELECT MAX(version) AS version FROM weft_schema_version')).rows[0]?.version ?? 0,
    );
    if (current > latest) {
      throw pgStoreFailed(
        database,
        'other',
        `The database ${database} has weft schema version ${current}, written by a newer weft; this weft knows up to version ${latest}. Upgrade weft on this host (every host must run the same or a newer weft).`,
      );
    }
    const applied: number[] = [];
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO weft_schema_version (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        now,
      ]);
      applied.push(migration.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
