/**
 * Model-limit slots and windows in the PostgreSQL store's database (see model-call-store.ts
 * for the rules). A start takes a transaction-scoped advisory lock per pool (sorted, so two
 * starts sharing pools never wait in a cycle), then counts and inserts: read after the
 * locks, the count sees every start committed before, which two READ COMMITTED statements
 * counting at once without the lock would not. Times are the database's clock (hosts'
 * clocks differ; leases are on it too), unless the store was opened with an injected one.
 */
import type pg from 'pg';
import { poolRefusal } from '../../model/model-limits.js';
import type { ModelCallStart, ModelCallStore, ModelCallVerdict } from '../model-call-store.js';
import type { PgStatements } from './pg-statements.js';

/** The database's time in epoch ms, or the injected time `$1` when not null. */
const NOW = `COALESCE($1::bigint, (extract(epoch FROM statement_timestamp()) * 1000)::bigint)`;

const LOCK_POOL = `SELECT pg_advisory_xact_lock(hashtextextended('weft.model-limit:' || $1, 0))`;

const LIVE = `EXISTS (SELECT 1 FROM runs r WHERE r.id = m.run_id AND r.lease_owner = m.lease_owner AND r.lease_expires_at > t.now)`;

/**
 * Prunes pool `$2`'s rows that count in no window any more and counts it (window `$3` ms).
 * The delete's rows are ones the counts skip anyway, so counting from the same snapshot is exact.
 */
const USAGE = `WITH t AS (SELECT ${NOW} AS now),
  pruned AS (DELETE FROM model_calls m USING t WHERE m.pool = $2 AND (m.ended_at <= t.now - $3::bigint OR (m.ended_at IS NULL AND m.started_at <= t.now - $3::bigint AND NOT ${LIVE})) RETURNING 1)
  SELECT t.now,
    (SELECT count(*) FROM model_calls m WHERE m.pool = $2 AND m.ended_at IS NULL AND ${LIVE})::int AS in_flight,
    (SELECT count(*) FROM model_calls m WHERE m.pool = $2 AND m.started_at > t.now - $3::bigint)::int AS requests,
    (SELECT min(m.started_at) FROM model_calls m WHERE m.pool = $2 AND m.started_at > t.now - $3::bigint) AS oldest_request_at,
    (SELECT COALESCE(sum(m.tokens), 0) FROM model_calls m WHERE m.pool = $2 AND m.ended_at > t.now - $3::bigint AND m.tokens > 0)::bigint AS tokens,
    (SELECT min(m.ended_at) FROM model_calls m WHERE m.pool = $2 AND m.ended_at > t.now - $3::bigint AND m.tokens > 0) AS oldest_tokens_at,
    (SELECT count(*) FROM pruned)::int AS pruned
  FROM t`;

const INSERT = `INSERT INTO model_calls (pool, call_id, run_id, lease_owner, started_at) SELECT unnest($1::text[]), $2, $3, $4, $5`;
const FINISH = `UPDATE model_calls SET ended_at = ${NOW}, tokens = $2 WHERE call_id = $3 AND ended_at IS NULL`;

interface UsageRow {
  now: string | number;
  in_flight: number;
  requests: number;
  oldest_request_at: string | number | null;
  tokens: string | number;
  oldest_tokens_at: string | number | null;
}

const orNull = (value: string | number | null): number | null => (value === null ? null : Number(value));

export class PgModelCallStore implements ModelCallStore {
  readonly #sql: PgStatements;
  /** The injected clock of a store opened with one (tests); undefined: the database's time. */
  readonly #clock: (() => number) | undefined;

  constructor(sql: PgStatements, clock: (() => number) | undefined) {
    this.#sql = sql;
    this.#clock = clock;
  }

  async tryStart(call: ModelCallStart): Promise<ModelCallVerdict> {
    const pools = [...call.pools].sort((a, b) => (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0));
    let verdict: ModelCallVerdict = { started: true };
    await this.#sql.transaction('start a model call under its limits', async (query) => {
      let now = 0;
      for (const pool of pools) {
        await query(LOCK_POOL, [pool.pattern]);
        const row = ((await query(USAGE, [this.#clock?.() ?? null, pool.pattern, call.windowMs])) as pg.QueryResult<UsageRow>).rows[0]!;
        now = Number(row.now);
        const usage = {
          inFlight: row.in_flight,
          requests: row.requests,
          oldestRequestAt: orNull(row.oldest_request_at),
          tokens: Number(row.tokens),
          oldestTokensAt: orNull(row.oldest_tokens_at),
        };
        const refusal = poolRefusal(pool, usage, now, call.windowMs);
        if (refusal !== undefined) {
          verdict = { started: false, ...refusal };
          return;
        }
      }
      await query(INSERT, [pools.map((pool) => pool.pattern), call.callId, call.runId, call.leaseOwner, now]);
    });
    return verdict;
  }

  async finish(callId: string, tokens: number): Promise<void> {
    await this.#sql.count('end a model call', FINISH, [this.#clock?.() ?? null, Math.max(0, Math.round(tokens)), callId]);
  }
}
