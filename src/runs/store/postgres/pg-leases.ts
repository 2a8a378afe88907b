/**
 * Leases on a shared PostgreSQL queue: a runner claims a run with `FOR UPDATE SKIP LOCKED`
 * (no two runners on any host ever get the same run, nor a concurrency key beyond its
 * limit: runs with keys are taken under a transaction lock per key), renews its lease with a heartbeat
 * and releases it when done. Every change is announced to the other hosts.
 *
 * Lease times are the database's clock, not the caller's: hosts' clocks differ, and a
 * worker whose clock ran 30 s ahead would otherwise see every other worker's lease as
 * expired and take their runs over at once (a worker behind would lose its own). Only a
 * store opened with an injected clock (tests) passes its time as `at` instead.
 */
import type { RunRecord } from '../../model/run-record.js';
import type { ClaimFilter } from '../run-store.js';
import { checkLease, claimFingerprint, concurrencyKeys, runId, runNotFound } from '../store-input.js';
import { recordOf, type RunRow } from './pg-run-rows.js';
import type { PgStatements } from './pg-statements.js';

/** The database's time in epoch ms, or the caller's injected time when `$n` is not null. */
const leaseNow = (param: string): string => `COALESCE(${param}::bigint, (extract(epoch FROM statement_timestamp()) * 1000)::bigint)`;
const NOW3 = leaseNow('$3');

/** Statuses in which a leased run holds its concurrency keys. */
const HOLDING = "('queued', 'starting', 'running', 'blocked', 'paused')";

/**
 * Run `alias` has room under every concurrency key it carries: fewer other unfinished runs
 * carrying the key hold a live lease (bound: `now`) than the key's limit.
 */
const room = (alias: string, now: string): string =>
  `(${alias}.concurrency IS NULL OR NOT EXISTS (SELECT 1 FROM jsonb_array_elements(${alias}.concurrency) AS c(value) WHERE (SELECT count(*) FROM runs h CROSS JOIN jsonb_array_elements(h.concurrency) AS hc(value) WHERE h.concurrency IS NOT NULL AND h.lease_owner IS NOT NULL AND h.lease_expires_at > ${now} AND h.status IN ${HOLDING} AND h.id <> ${alias}.id AND hc.value ->> 'key' = c.value ->> 'key') >= (c.value ->> 'limit')::int))`;

/**
 * A run whose runner died (its lease ran out), oldest lease first; else the oldest queued
 * run — in one statement (one round trip): the second pick runs only when the first found
 * nothing. A runner started for a creator also matches the environment fingerprint in the
 * run's spec. Only a run without concurrency keys is taken here; a run with keys that have
 * room is named (`keyed_id`), for `TAKE_KEYED` to take under its keys' locks, because two
 * statements counting a key's holders at once would both see room.
 */
const claimQuery = (sameEnvironment: boolean): string => {
  const match = sameEnvironment ? " AND (r.spec::jsonb ->> 'envFingerprint') = $4" : '';
  const orphan = `SELECT r.id, r.concurrency FROM runs r WHERE r.status IN ('starting', 'running', 'blocked') AND r.lease_expires_at <= ${NOW3}${match} AND ${room('r', NOW3)} ORDER BY r.lease_expires_at, r.created_at, r.id LIMIT 1 FOR UPDATE SKIP LOCKED`;
  const queued = `SELECT r.id, r.concurrency FROM runs r WHERE r.status = 'queued' AND r.lease_expires_at <= ${NOW3}${match} AND ${room('r', NOW3)} AND NOT EXISTS (SELECT 1 FROM orphan) ORDER BY r.claim_at, r.id LIMIT 1 FOR UPDATE SKIP LOCKED`;
  const taken = `UPDATE runs SET lease_owner = $1, lease_expires_at = ${NOW3} + $2::bigint FROM pick WHERE runs.id = pick.id AND pick.concurrency IS NULL RETURNING runs.spec, runs.state, runs.lease_owner, runs.lease_expires_at`;
  return `WITH orphan AS (${orphan}), queued AS (${queued}), pick AS (SELECT id, concurrency FROM orphan UNION ALL SELECT id, concurrency FROM queued), taken AS (${taken})
    SELECT t.spec, t.state, t.lease_owner, t.lease_expires_at, k.id AS keyed_id, k.concurrency AS keyed_concurrency
    FROM (SELECT 1) AS one LEFT JOIN taken t ON true LEFT JOIN (SELECT id, concurrency FROM pick WHERE concurrency IS NOT NULL) k ON true`;
};
const CLAIM_ANY = claimQuery(false);
const CLAIM_SAME_ENVIRONMENT = claimQuery(true);

/** Serialises the claims of runs carrying key `$1` (transaction-scoped, so a crash frees it). */
const LOCK_KEY = `SELECT pg_advisory_xact_lock(hashtextextended('weft.concurrency:' || $1, 0))`;
/** Takes run `$4` if it is still claimable and its keys still have room; read after its keys' locks, so it counts every claim committed before. */
const TAKE_KEYED = `UPDATE runs r SET lease_owner = $1, lease_expires_at = ${NOW3} + $2::bigint WHERE r.id = $4 AND r.lease_expires_at <= ${NOW3} AND r.status IN ('queued', 'starting', 'running', 'blocked') AND ${room('r', NOW3)} RETURNING r.spec, r.state, r.lease_owner, r.lease_expires_at`;
const HELD = `SELECT k.key, (SELECT count(*) FROM runs h CROSS JOIN jsonb_array_elements(h.concurrency) AS hc(value) WHERE h.concurrency IS NOT NULL AND h.lease_owner IS NOT NULL AND h.lease_expires_at > ${leaseNow('$2')} AND h.status IN ${HOLDING} AND hc.value ->> 'key' = k.key)::int AS n FROM unnest($1::text[]) AS k(key)`;

/** How often a claim looks again after another runner took the keyed run it picked first. */
const KEYED_ATTEMPTS = 5;

interface ClaimRow extends Partial<RunRow> {
  keyed_id: string | null;
  keyed_concurrency: { key: string }[] | null;
}

/** `at`: the injected clock's time (tests), or null for the database's time. */
export async function claimRun(
  sql: PgStatements,
  workerId: string,
  leaseMs: number,
  at: number | null,
  filter?: ClaimFilter,
): Promise<RunRecord | undefined> {
  checkLease(workerId, leaseMs);
  const fingerprint = claimFingerprint(filter);
  const query = fingerprint === undefined ? CLAIM_ANY : CLAIM_SAME_ENVIRONMENT;
  const params = fingerprint === undefined ? [workerId, leaseMs, at] : [workerId, leaseMs, at, fingerprint];
  for (let attempt = 0; attempt < KEYED_ATTEMPTS; attempt += 1) {
    const [row] = await sql.rows<ClaimRow>('claim a run', query, params);
    const taken = row?.spec == null ? await takeKeyed(sql, row, [workerId, leaseMs, at]) : (row as RunRow);
    if (taken === 'none') return undefined;
    if (taken === 'lost') continue;
    const run = recordOf(taken);
    sql.notifyChanges([{ id: run.id, headSeq: run.counts.events, status: run.status }]);
    return run;
  }
  return undefined;
}

/** Takes the keyed run the claim picked under its keys' locks; `lost` when it no longer may be. */
async function takeKeyed(sql: PgStatements, row: ClaimRow | undefined, params: unknown[]): Promise<RunRow | 'none' | 'lost'> {
  if (row?.keyed_id == null) return 'none';
  const id = row.keyed_id;
  const keys = [...new Set((row.keyed_concurrency ?? []).map((slot) => slot.key))].sort();
  let taken: RunRow | undefined;
  await sql.transaction('claim a run', async (query) => {
    // Always in the same (sorted) order, so two claims sharing keys never wait for each other in a cycle.
    for (const key of keys) await query(LOCK_KEY, [key]);
    taken = ((await query(TAKE_KEYED, [...params, id])) as { rows: RunRow[] }).rows[0];
  });
  return taken ?? 'lost';
}

/** How many unfinished runs hold each key under a live lease; `at` as for `claimRun`. */
export async function concurrencyHeld(sql: PgStatements, keys: readonly string[], at: number | null): Promise<Record<string, number>> {
  const wanted = concurrencyKeys(keys);
  if (wanted.length === 0) return {};
  const rows = await sql.rows<{ key: string; n: number }>('count concurrency key holders', HELD, [wanted, at]);
  return Object.fromEntries(rows.map((row) => [row.key, row.n]));
}

export async function renewLease(sql: PgStatements, id: string, workerId: string, leaseMs: number, at: number | null): Promise<boolean> {
  runId(id);
  checkLease(workerId, leaseMs);
  return leaseUpdate(sql, id, 'renew a lease', `lease_expires_at = ${leaseNow('$4')} + $3::bigint`, [id, workerId, leaseMs, at], false);
}

export async function releaseLease(sql: PgStatements, id: string, workerId: string): Promise<boolean> {
  runId(id);
  checkLease(workerId, 1);
  return leaseUpdate(sql, id, 'release a lease', 'lease_owner = NULL, lease_expires_at = 0', [id, workerId], true);
}

/**
 * Sets `set` on run `$1` if `$2` holds its lease, and says in the same round trip whether
 * the run exists (a lease the run's end already let go is no error). `frees`: the update
 * lets the run be claimed again (when its status allows).
 */
async function leaseUpdate(
  sql: PgStatements,
  id: string,
  action: string,
  set: string,
  params: unknown[],
  frees: boolean,
): Promise<boolean> {
  const query = `WITH updated AS (UPDATE runs SET ${set} WHERE id = $1 AND lease_owner = $2 RETURNING id) SELECT EXISTS (SELECT 1 FROM updated) AS held, EXISTS (SELECT 1 FROM runs WHERE id = $1) AS found`;
  const [row] = await sql.rows<{ held: boolean; found: boolean }>(action, query, params);
  if (row?.held === true) {
    sql.notifyChanges([{ id }], frees);
    return true;
  }
  if (row?.found !== true) throw runNotFound(id);
  return false;
}
