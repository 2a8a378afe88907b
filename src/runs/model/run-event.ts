/**
 * Events: the append-only log of a run. Types are noun-verb kebab strings; the set is open
 * (model turns, pair sessions, MCP servers…); the types weft writes and their payloads are
 * in the catalogue (`event-types.ts`).
 */
import type { JsonObject } from './json.js';

/** One entry of a run's event log, in order (`seq`); `type` names it and `payload` holds its fields. */
export interface RunEvent {
  runId: string;
  /** 1-based, per run, no gaps. */
  seq: number;
  /** Epoch ms. */
  at: number;
  type: string;
  stageId?: string;
  payload: JsonObject;
}

/** An event as a caller appends it; the store assigns `runId`, `seq` and (by default) `at`. */
export interface NewRunEvent {
  type: string;
  stageId?: string;
  payload: JsonObject;
  at?: number;
}

/** noun-verb, lower-case kebab: `stage-started`, `mcp-server-connected`. */
export const EVENT_TYPE = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$/;
export const MAX_EVENT_TYPE_LENGTH = 64;

/** `<node>@<attempt>`, e.g. `implement@1`; safe to use in a file name. */
export const STAGE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}@[1-9][0-9]{0,8}$/;
