/**
 * The SQL a runner claims a run with: an orphan (its runner's lease ran out while it was
 * starting, running or blocked) first, else the queued run with the earliest claim time
 * (its creation moved earlier by its priority, `claimTime` in run-record.ts), in either case
 * only a run whose concurrency keys all have room (`run-concurrency.ts`). A runner started
 * for a creator also matches the environment fingerprint in the run's spec, looked up by
 * primary key for each candidate row, so the schema needs no column for it. The claim runs
 * in one write transaction, which every process takes in turn, so counting the holders of
 * a key there is exact.
 */

import { PRIORITY_STEP_MS } from '../../model/run-record.js';

/**
 * Runs holding a key: unfinished, with a live lease (bound: now). Walks the live leases
 * through `runs_by_lease`, which are few (the runs being executed), not the keys.
 */
const HOLDERS = `SELECT COUNT(*) FROM runs h, json_each(h.concurrency) hc WHERE h.status IN ('queued', 'starting', 'running', 'blocked', 'paused') AND h.lease_expires_at > ? AND h.lease_owner IS NOT NULL AND h.concurrency IS NOT NULL AND json_extract(hc.value, '$.key') = `;

/** The candidate `runs` row has room under every key it carries (bound: now). */
const ROOM = `(runs.concurrency IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(runs.concurrency) c WHERE (${HOLDERS}json_extract(c.value, '$.key')) >= json_extract(c.value, '$.limit')))`;

/** How many runs hold key `?` now (bound: now, key). */
export const HELD_QUERY = `${HOLDERS}?`;

/**
 * Each query names its index: with the key check in the WHERE clause, SQLite's planner would
 * otherwise read every queued run and sort them, checking the keys of all of them (43 ms a
 * claim with 300 queued runs carrying keys, against 1.2 ms so), where walking the claim order and stopping
 * at the first run with room checks one run when keys are free.
 *
 * With `sameEnvironment`, a second parameter is the fingerprint the run's spec must carry; see `claimParams`. */
export function claimQueries(sameEnvironment: boolean): [orphan: string, queued: string] {
  const match = sameEnvironment
    ? " AND (SELECT json_extract(spec, '$.envFingerprint') FROM run_specs WHERE run_specs.id = runs.id) = ?"
    : '';
  return [
    `SELECT id FROM runs INDEXED BY runs_by_lease WHERE status IN ('starting', 'running', 'blocked') AND lease_expires_at <= ?${match} AND ${ROOM} ORDER BY lease_expires_at, created_at, id LIMIT 1`,
    `SELECT id FROM runs INDEXED BY runs_by_claim WHERE status = 'queued' AND lease_expires_at <= ?${match} AND ${ROOM} ORDER BY created_at - priority * ${PRIORITY_STEP_MS}, id LIMIT 1`,
  ];
}

/** The parameters of both `claimQueries`: the time, the fingerprint when matched, the time again (for the holders). */
export function claimParams(now: number, fingerprint: string | undefined): unknown[] {
  return fingerprint === undefined ? [now, now] : [now, fingerprint, now];
}
