/**
 * Reading a run's row: the columns a `RunRecord` is made of, and the head (state and
 * lease holder) that writes and existence checks need.
 */
import type { RunRecord } from '../../model/run-record.js';
import { runFromRow } from '../sqlite/run-rows.js';
import { runNotFound } from '../store-input.js';
import type { PgStatements } from './pg-statements.js';

export const RUN_COLUMNS = 'spec, state, lease_owner, lease_expires_at';

export interface RunRow {
  spec: string;
  state: string;
  lease_owner: string | null;
  lease_expires_at: number;
}

const GET_HEAD = 'SELECT state, lease_owner FROM runs WHERE id = $1';

export function recordOf(row: RunRow): RunRecord {
  return runFromRow({ ...row, head_seq: null, head_at: null });
}

/** The run's state and lease holder; refuses a run that does not exist. */
export async function requireHead(sql: PgStatements, id: string): Promise<{ state: string; lease_owner: string | null }> {
  const [row] = await sql.rows<{ state: string; lease_owner: string | null }>('read a run', GET_HEAD, [id]);
  if (row === undefined) throw runNotFound(id);
  return row;
}
