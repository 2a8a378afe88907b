/**
 * Leases on a shared PostgreSQL queue: a runner claims a run with `FOR UPDATE SKIP LOCKED`
 * (no two runners on any host ever get the same run), renews its lease with a heartbeat
 * and releases it when done. Every change is announced to the other hosts.
 */
import type { RunRecord } from '../../model/run-record.js';
import type { ClaimFilter } from '../run-store.js';
import { checkLease, claimFingerprint, runId } from '../store-input.js';
import { recordOf, requireHead, RUN_COLUMNS, type RunRow } from './pg-run-rows.js';
import type { PgStatements } from './pg-statements.js';

const CLAIM = (pick: string) => `UPDATE runs SET lease_owner = $1, lease_expires_at = $2 WHERE id = (${pick} FOR UPDATE SKIP LOCKED) RETURNING ${RUN_COLUMNS}`;
/**
 * A run whose runner died (its lease ran out), oldest lease first; then the oldest queued run.
 * A runner started for a creator also matches the environment fingerprint in the run's spec.
 */
const claimQueries = (sameEnvironment: boolean): [orphan: string, queued: string] => {
  const match = sameEnvironment ? " AND (spec::jsonb ->> 'envFingerprint') = $4" : '';
  return [
    CLAIM(`SELECT id FROM runs WHERE status IN ('starting', 'running', 'blocked') AND lease_expires_at <= $3${match} ORDER BY lease_expires_at, created_at, id LIMIT 1`),
    CLAIM(`SELECT id FROM runs WHERE status = 'queued' AND lease_expires_at <= $3${match} ORDER BY created_at, id LIMIT 1`),
  ];
};
const CLAIM_ANY = claimQueries(false);
const CLAIM_SAME_ENVIRONMENT = claimQueries(true);

export async function claimRun(sql: PgStatements, workerId: string, leaseMs: number, now: number, filter?: ClaimFilter): Promise<RunRecord | undefined> {
  checkLease(workerId, leaseMs);
  const fingerprint = claimFingerprint(filter);
  for (const query of fingerprint === undefined ? CLAIM_ANY : CLAIM_SAME_ENVIRONMENT) {
    const [row] = await sql.rows<RunRow>('claim a run', query, fingerprint === undefined ? [workerId, now + leaseMs, now] : [workerId, now + leaseMs, now, fingerprint]);
    if (row === undefined) continue;
    sql.notifyChanges();
    return recordOf(row);
  }
  return undefined;
}

export async function renewLease(sql: PgStatements, id: string, workerId: string, leaseMs: number, now: number): Promise<boolean> {
  runId(id);
  checkLease(workerId, leaseMs);
  return leaseUpdate(sql, id, 'renew a lease', 'UPDATE runs SET lease_expires_at = $3 WHERE id = $1 AND lease_owner = $2', [id, workerId, now + leaseMs]);
}

export async function releaseLease(sql: PgStatements, id: string, workerId: string): Promise<boolean> {
  runId(id);
  checkLease(workerId, 1);
  return leaseUpdate(sql, id, 'release a lease', 'UPDATE runs SET lease_owner = NULL, lease_expires_at = 0 WHERE id = $1 AND lease_owner = $2', [id, workerId]);
}

async function leaseUpdate(sql: PgStatements, id: string, action: string, query: string, params: unknown[]): Promise<boolean> {
  if ((await sql.count(action, query, params)) === 1) {
    sql.notifyChanges();
    return true;
  }
  await requireHead(sql, id);
  return false;
}
