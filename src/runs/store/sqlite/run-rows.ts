/**
 * Row shapes of the SQLite schema and their mapping to model records. JSON columns hold
 * what the shared planner already normalised, so parsing them back is lossless.
 */
import type { JsonObject } from '../../model/json.js';
import type { QuestionRecord } from '../../model/question.js';
import type { RunEvent } from '../../model/run-event.js';
import type { RunRecord, RunSpec, RunState } from '../../model/run-record.js';
import type { McpServerEntry } from '../run-store.js';

export interface RunRow extends EventHead {
  spec: string;
  state: string;
  lease_owner: string | null;
  lease_expires_at: number;
}

/** The run's newest event, read beside its stored state (see {@link stateAtHead}). */
export interface EventHead {
  head_seq: number | null;
  head_at: number | null;
}

/** Selects {@link EventHead} for the run aliased `r`: two probes of the events primary key. */
export const EVENT_HEAD_COLUMNS =
  '(SELECT MAX(seq) FROM events e WHERE e.run_id = r.id) AS head_seq, (SELECT at FROM events e WHERE e.run_id = r.id ORDER BY seq DESC LIMIT 1) AS head_at';

/**
 * The stored state may lag behind the log by events that change nothing but the event
 * count and `updatedAt` (most of them: model turns, tool results, logs): an append skips
 * rewriting the run's row for those, which saves writing one more page per event. It does
 * so only when its last event carries the newest time, so the head event gives both.
 */
/** A run's newest event: its seq and time ({@link EventHead}), by run id. */
export const GET_HEAD = 'SELECT seq AS head_seq, at AS head_at FROM events WHERE run_id = ? ORDER BY seq DESC LIMIT 1';

export function stateAtHead(state: RunState, head: EventHead): RunState {
  if (head.head_seq === null || head.head_at === null || head.head_seq <= state.counts.events) return state;
  return { ...state, counts: { ...state.counts, events: head.head_seq }, updatedAt: head.head_at };
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
  const summary: RunRecord = { ...(JSON.parse(row.spec) as RunSpec), ...stateAtHead(JSON.parse(row.state) as RunState, row) };
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
export function stateColumns(state: RunState): {
  status: string;
  archived: number;
  parentId: string | null;
  updatedAt: number;
  state: string;
} {
  return {
    status: state.status,
    archived: state.archived ? 1 : 0,
    parentId: state.parentId ?? null,
    updatedAt: state.updatedAt,
    state: JSON.stringify(state),
  };
}
