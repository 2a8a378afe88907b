/**
 * The database schema as an ordered list of migrations, applied at open inside one
 * immediate transaction and recorded in `schema_version`. Append new migrations; never
 * edit an applied one. A run's immutable spec (goal, inputs…) lives apart from its
 * projected state, so appending an event rewrites only the small state row.
 */
import type Database from 'better-sqlite3';
import { storeFailed } from './sqlite-errors.js';
import { PRIORITY_STEP_MS } from '../../model/run-record.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'runs (projected state + immutable spec), events, labels, questions, leases, MCP server catalogue',
    sql: `
      CREATE TABLE runs (
        id TEXT PRIMARY KEY NOT NULL,
        workflow TEXT NOT NULL,
        status TEXT NOT NULL,
        archived INTEGER NOT NULL DEFAULT 0,
        parent_id TEXT REFERENCES runs(id),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        lease_owner TEXT,
        lease_expires_at INTEGER NOT NULL DEFAULT 0,
        state TEXT NOT NULL
      );
      CREATE INDEX runs_by_created ON runs (archived, created_at, id);
      CREATE INDEX runs_by_status ON runs (status, created_at, id);
      CREATE INDEX runs_by_parent ON runs (parent_id, created_at, id);
      CREATE INDEX runs_by_workflow ON runs (workflow, created_at, id);
      CREATE INDEX runs_by_lease ON runs (status, lease_expires_at);

      CREATE TABLE run_specs (
        id TEXT PRIMARY KEY NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        spec TEXT NOT NULL
      );

      CREATE TABLE run_labels (
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        PRIMARY KEY (key, value, created_at, run_id)
      ) WITHOUT ROWID;
      CREATE INDEX run_labels_by_run ON run_labels (run_id);

      CREATE TABLE events (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        at INTEGER NOT NULL,
        type TEXT NOT NULL,
        stage_id TEXT,
        payload TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) WITHOUT ROWID;

      CREATE TABLE questions (
        id TEXT PRIMARY KEY NOT NULL,
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        status TEXT NOT NULL,
        asked_at INTEGER NOT NULL,
        record TEXT NOT NULL
      );
      CREATE INDEX questions_by_run ON questions (run_id, asked_at, id);

      CREATE TABLE mcp_servers (
        name TEXT PRIMARY KEY NOT NULL,
        config TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    // No schema change: from this version on, `runs.state` (and `updated_at`) may lag
    // behind the log by events that change only the event count and time, and readers
    // complete it from the newest event. Recording the version makes an older weft, which
    // would read the lagging state as it is, refuse the database instead.
    version: 2,
    name: 'run state completed from the newest event',
    sql: 'SELECT 1;',
  },
  {
    // The live runs list (`listRunsUpdatedAfter`) walks runs in the order they changed.
    version: 3,
    name: 'runs by update time',
    sql: 'CREATE INDEX runs_by_updated ON runs (updated_at, id);',
  },
  {
    // Runs have a priority: queued runs are claimed by their creation time moved earlier by
    // it (PRIORITY_STEP_MS a step, see run-record.ts), through this index.
    version: 4,
    name: 'run priority',
    sql: `
      ALTER TABLE runs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX runs_by_claim ON runs (status, (created_at - priority * ${PRIORITY_STEP_MS}), id);
    `,
  },
  {
    // A run's resolved concurrency keys (`[{ key, limit }]` as JSON, NULL for none), copied
    // from its spec so the claim counts a key's holders among the live leases without
    // reading specs. Runs created before have none.
    version: 5,
    name: 'run concurrency keys',
    sql: 'ALTER TABLE runs ADD COLUMN concurrency TEXT;',
  },
  {
    // Schedules and webhook triggers (docs/schedules.md). A schedule's next due time moves
    // forward only by compare-and-set, and each due time it fires is a row keyed by
    // (schedule, due time) holding the id of the run it makes: two workers can never both
    // fire one due time. A delivery id is a key too, so a retried webhook finds its run.
    version: 6,
    name: 'schedules (next due time, fires) and webhook triggers (deliveries)',
    sql: `
      CREATE TABLE schedules (
        name TEXT PRIMARY KEY NOT NULL,
        spec TEXT NOT NULL,
        paused INTEGER NOT NULL DEFAULT 0,
        next_due INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX schedules_by_due ON schedules (paused, next_due);
      CREATE TABLE schedule_fires (
        schedule TEXT NOT NULL,
        due_at INTEGER NOT NULL,
        run_id TEXT NOT NULL,
        state TEXT NOT NULL,
        claimed_by TEXT NOT NULL,
        claimed_at INTEGER NOT NULL,
        PRIMARY KEY (schedule, due_at)
      ) WITHOUT ROWID;
      CREATE INDEX schedule_fires_by_state ON schedule_fires (state, claimed_at);
      CREATE TABLE triggers (
        name TEXT PRIMARY KEY NOT NULL,
        spec TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE trigger_deliveries (
        trigger_name TEXT NOT NULL,
        delivery_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        received_at INTEGER NOT NULL,
        PRIMARY KEY (trigger_name, delivery_id)
      ) WITHOUT ROWID;
    `,
  },
  {
    // Model limits (`[llm.limits]`, docs/spend-and-flow.md): one row per model call and
    // pool it falls under — who holds it (run, lease owner), when it started and ended, its
    // tokens once known. A call in flight counts only while its run's lease is its owner's
    // and live, so a crashed runner's slots free themselves when its lease runs out.
    version: 7,
    name: 'model limits (calls per pool: slots and rate windows)',
    sql: `
      CREATE TABLE model_calls (
        pool TEXT NOT NULL,
        call_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        lease_owner TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        tokens INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (pool, call_id)
      ) WITHOUT ROWID;
      CREATE INDEX model_calls_by_start ON model_calls (pool, started_at);
      CREATE INDEX model_calls_by_end ON model_calls (pool, ended_at);
      CREATE INDEX model_calls_by_call ON model_calls (call_id);
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/** Applies the migrations the database lacks; returns the versions applied. */
export function migrate(db: Database, file: string, now: number, migrations: readonly Migration[] = MIGRATIONS): number[] {
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  const apply = db.transaction(() => {
    db.exec(
      'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    );
    const row = db.prepare<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_version').get();
    const current = row?.version ?? 0;
    if (current > latest) {
      throw storeFailed(
        file,
        'other',
        `The database ${file} has schema version ${current}, written by a newer weft; this weft knows up to version ${latest}. Upgrade weft, or use another storage dir.`,
      );
    }
    const applied: number[] = [];
    const record = db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)');
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, now);
      applied.push(migration.version);
    }
    return applied;
  });
  return apply.immediate();
}
