/**
 * Model-limit slots and windows in the SQLite store's database (see model-call-store.ts
 * for the rules). A start counts each pool and inserts the call's rows in one immediate
 * transaction, which every process sharing the file takes in turn, so the count is exact.
 */
import type Database from 'better-sqlite3';
import { poolRefusal, type ModelPoolUsage } from '../../model/model-limits.js';
import type { ModelCallStart, ModelCallStore, ModelCallVerdict } from '../model-call-store.js';
import type { Clock } from '../run-store.js';
import { retryWhileLocked } from './lock-retry.js';
import { toStoreError } from './sqlite-errors.js';

const ATTEMPTS = 5;

/** A call holds its slot while its run's lease is its owner's and live (bound: @now). */
const LIVE =
  'EXISTS (SELECT 1 FROM runs r WHERE r.id = model_calls.run_id AND r.lease_owner = model_calls.lease_owner AND r.lease_expires_at > @now)';

/** What pool @pool counts at @now, over the window since @since. */
const USAGE = `SELECT
  (SELECT COUNT(*) FROM model_calls WHERE pool = @pool AND ended_at IS NULL AND ${LIVE}) AS inFlight,
  (SELECT COUNT(*) FROM model_calls WHERE pool = @pool AND started_at > @since) AS requests,
  (SELECT MIN(started_at) FROM model_calls WHERE pool = @pool AND started_at > @since) AS oldestRequestAt,
  (SELECT COALESCE(SUM(tokens), 0) FROM model_calls WHERE pool = @pool AND ended_at > @since AND tokens > 0) AS tokens,
  (SELECT MIN(ended_at) FROM model_calls WHERE pool = @pool AND ended_at > @since AND tokens > 0) AS oldestTokensAt`;

/** Rows that count in no window any more: ended before it, or never ended, started before it and no longer held by a live lease. */
const PRUNE = `DELETE FROM model_calls WHERE pool = @pool AND (ended_at <= @since OR (ended_at IS NULL AND started_at <= @since AND NOT ${LIVE}))`;

const INSERT = 'INSERT INTO model_calls (pool, call_id, run_id, lease_owner, started_at) VALUES (?, ?, ?, ?, ?)';
const FINISH = 'UPDATE model_calls SET ended_at = ?, tokens = ? WHERE call_id = ? AND ended_at IS NULL';

export class SqliteModelCallStore implements ModelCallStore {
  readonly #db: Database;
  readonly #file: string;
  readonly #clock: Clock;
  readonly #statements = new Map<string, Database.Statement>();

  constructor(db: Database, clock: Clock) {
    this.#db = db;
    this.#file = db.name;
    this.#clock = clock;
  }

  #stmt<Row = unknown>(sql: string): Database.Statement<Row> {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql) as Database.Statement;
      this.#statements.set(sql, statement);
    }
    return statement as Database.Statement<Row>;
  }

  async #write<T>(action: string, body: () => T): Promise<T> {
    try {
      return await retryWhileLocked({ attempts: ATTEMPTS, delayMs: 10 }, () => this.#db.transaction(body).immediate());
    } catch (error) {
      throw toStoreError(error, this.#file, action, ATTEMPTS);
    }
  }

  tryStart(call: ModelCallStart): Promise<ModelCallVerdict> {
    return this.#write('start a model call under its limits', () => {
      const now = this.#clock();
      const since = now - call.windowMs;
      for (const pool of call.pools) {
        this.#stmt(PRUNE).run({ pool: pool.pattern, since, now });
        const usage = this.#stmt<ModelPoolUsage>(USAGE).get({ pool: pool.pattern, since, now })!;
        const refusal = poolRefusal(pool, usage, now, call.windowMs);
        if (refusal !== undefined) return { started: false, ...refusal };
      }
      for (const pool of call.pools) this.#stmt(INSERT).run(pool.pattern, call.callId, call.runId, call.leaseOwner, now);
      return { started: true };
    });
  }

  async finish(callId: string, tokens: number): Promise<void> {
    await this.#write('end a model call', () => this.#stmt(FINISH).run(this.#clock(), Math.max(0, Math.round(tokens)), callId));
  }
}
