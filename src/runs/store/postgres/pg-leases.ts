/**
 * Leases on a shared PostgreSQL queue: a runner claims a run with `FOR UPDATE SKIP LOCKED`
 * (no two runners on any host ever get the same run), renews its lease with a heartbeat
 * and releases it when done. Every change is announced to the other hosts.
 *
 * Lease times are the database's clock, not the caller's: hosts' clocks differ, and a
 * worker whose clock ran 30 s ahead would otherwise see every other worker's lease as
 * expired and take their runs over at once (a worker behind would lose its own). Only a
 * store opened with an injected clock (tests) passes its time as `at` instead.
 */
import type { RunRecord } from '../../model/run-record.js';
import type { ClaimFilter } from '../run-store.js';
import { checkLease, claimFingerprint, runId, runNotFound } from '../store-input.js';
import { recordOf, RUN_COLUMNS, type RunRow } from './pg-run-rows.js';
import type { PgStatements } from './pg-statements.js';

/** The database's time in epoch ms, or the caller's injected time when `$n` is not null. */
const leaseNow = (param: string): string => `COALESCE(${param}::bigint, (extract(epoch FROM statement_timestamp()) * 1000)::bigint)`;

/**
 * A run whose runner died (its lease ran out), oldest lease first; else the oldest queued
 * run — in one statement (one round trip): the second update runs only when the first took
 * nothing. A runner started for a creator also matches the environment fingerprint in the
 * run's spec.
 */
const claimQuery = (sameEnvironment: boolean): string => {
  const match = sameEnvironment ? " AND (spec::jsonb ->> 'envFingerprint') = $4" : '';
  const now = leaseNow('$3');
  const take = (pick: string) => `UPDATE runs SET lease_owner = $1, lease_expires_at = ${now} + $2::bigint WHERE id = (${pick} FOR UPDATE SKIP LOCKED) RETURNING ${RUN_COLUMNS}`;
  const orphan = take(`SELECT id FROM runs WHERE status IN ('starting', 'running', 'blocked') AND lease_expires_at <= ${now}${match} ORDER BY lease_expires_at, created_at, id LIMIT 1`);
  const queued = take(`SELECT id FROM runs WHERE status = 'queued' AND lease_expires_at <= ${now}${match} AND NOT EXISTS (SELECT 1 FROM orphan) ORDER BY claim_at, id LIMIT 1`);
  return `WITH orphan AS (${orphan}), queued AS (${queued}) SELECT * FROM orphan UNION ALL SELECT * FROM queued`;
};
const CLAIM_ANY = claimQuery(false);
const CLAIM_SAME_ENVIRONMENT = claimQuery(true);

/** `at`: the injected clock's time (tests), or null for the database's time. */
export async function claimRun(sql: PgStatements, workerId: string, leaseMs: number, at: number | null, filter?: ClaimFilter): Promise<RunRecord | undefined> {
  checkLease(workerId, leaseMs);
  const fingerprint = claimFingerprint(filter);
  const query = fingerprint === undefined ? CLAIM_ANY : CLAIM_SAME_ENVIRONMENT;
  const [row] = await sql.rows<RunRow>('claim a run', query, fingerprint === undefined ? [workerId, leaseMs, at] : [workerId, leaseMs, at, fingerprint]);
  if (row === undefined) return undefined;
  const run = recordOf(row);
  sql.notifyChanges([{ id: run.id, headSeq: run.counts.events, status: run.status }]);
  return run;
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
async function leaseUpdate(sql: PgStatements, id: string, action: string, set: string, params: unknown[], frees: boolean): Promise<boolean> {
  const query = `WITH updated AS (UPDATE runs SET ${set} WHERE id = $1 AND lease_owner = $2 RETURNING id) SELECT EXISTS (SELECT 1 FROM updated) AS held, EXISTS (SELECT 1 FROM runs WHERE id = $1) AS found`;
  const [row] = await sql.rows<{ held: boolean; found: boolean }>(action, query, params);
  if (row?.held === true) {
    sql.notifyChanges([{ id }], frees);
    return true;
  }
  if (row?.found !== true) throw runNotFound(id);
  return false;
}
