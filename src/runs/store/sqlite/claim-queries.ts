/**
 * The SQL a runner claims a run with: an orphan (its runner's lease ran out while it was
 * starting, running or blocked) first, else the queued run with the earliest claim time
 * (its creation moved earlier by its priority, `claimTime` in run-record.ts). A runner started for a
 * creator also matches the environment fingerprint in the run's spec, looked up by primary
 * key for each candidate row, so the schema needs no column for it.
 */

import { PRIORITY_STEP_MS } from '../../model/run-record.js';

/** With `sameEnvironment`, a second parameter is the fingerprint the run's spec must carry. */
export function claimQueries(sameEnvironment: boolean): [orphan: string, queued: string] {
  const match = sameEnvironment ? " AND (SELECT json_extract(spec, '$.envFingerprint') FROM run_specs WHERE run_specs.id = runs.id) = ?" : '';
  return [
    `SELECT id FROM runs WHERE status IN ('starting', 'running', 'blocked') AND lease_expires_at <= ?${match} ORDER BY lease_expires_at, created_at, id LIMIT 1`,
    `SELECT id FROM runs WHERE status = 'queued' AND lease_expires_at <= ?${match} ORDER BY created_at - priority * ${PRIORITY_STEP_MS}, id LIMIT 1`,
  ];
}
