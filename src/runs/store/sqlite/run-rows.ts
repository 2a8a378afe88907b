/**
 * Row shapes of the SQLite schema and their mapping to model records. JSON columns hold
 * what the shared planner already normalised, so parsing them back is lossless.
 */
import type { JsonObject } from '../../model/json.js';
import type { QuestionRecord } from '../../model/question.js';
import type { RunEvent } from '../../model/run-event.js';
import type { RunRecord, RunSpec, RunState } from '../../model/run-record.js';
import type { McpServerEntry } from '../run-store.js';

export interface RunRow {
  spec: string;
  state: string;
  lease_owner: string | null;
  lease_expires_at: number;
}

export interface EventRow {
  seq: number;
  at: number;
  type: string;
  stage_id: string | null;
  payload: string;
}

export interface McpServerRow {
  name: string;
  config: string;
  updated_at: number;
}

export function runFromRow(row: RunRow): RunRecord {
  const summary: RunRecord = { ...(JSON.parse(row.spec) as RunSpec), ...(JSON.parse(row.state) as RunState) };
  return row.lease_owner === null ? summary : { ...summary, lease: { workerId: row.lease_owner, expiresAt: row.lease_expires_at } };
}

export function eventFromRow(runId: string, row: EventRow): RunEvent {
  const base = { runId, seq: row.seq, at: row.at, type: row.type };
  const payload = JSON.parse(row.payload) as JsonObject;
  return row.stage_id === null ? { ...base, payload } : { ...base, stageId: row.stage_id, payload };
}

export function questionFromRow(row: { record: string }): QuestionRecord {
  return JSON.parse(row.record) as QuestionRecord;
}

export function mcpServerFromRow(row: McpServerRow): McpServerEntry {
  return { name: row.name, config: JSON.parse(row.config) as JsonObject, updatedAt: row.updated_at };
}

/** The `runs` columns a state change writes. */
export function stateColumns(state: RunState): { status: string; archived: number; parentId: string | null; updatedAt: number; state: string } {
  return { status: state.status, archived: state.archived ? 1 : 0, parentId: state.parentId ?? null, updatedAt: state.updatedAt, state: JSON.stringify(state) };
}
