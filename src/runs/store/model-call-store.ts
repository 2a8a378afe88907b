/**
 * Storage for model limits (`[llm.limits]`), kept in the run store's own database so every
 * runner on every host counts the same calls (migration 7 of both stores). One row per call
 * and pool: who holds it (run, lease owner), when it started and ended, and its tokens once
 * known. A call in flight counts against `concurrent` only while its run's lease is held by
 * the same owner and live, so a SIGKILLed runner leaks nothing once its lease runs out.
 * Starting is check-and-insert in one transaction (SQLite: an immediate transaction;
 * PostgreSQL: a transaction lock per pool), so no two runners both take the last slot.
 */
import type { ModelLimitPool, ModelLimitRefusal } from '../model/model-limits.js';

export interface ModelCallStart {
  /** A ULID for the call, chosen by the caller. */
  callId: string;
  runId: string;
  leaseOwner: string;
  /** Every pool the call falls under; it starts only when all have room. */
  pools: readonly ModelLimitPool[];
  /** The rate window (60 s; shorter only in tests). */
  windowMs: number;
}

export type ModelCallVerdict = { started: true } | ({ started: false } & ModelLimitRefusal);

export interface ModelCallStore {
  /** Records the call under every pool when all have room; else records nothing and says which limit stops it. */
  tryStart(call: ModelCallStart): Promise<ModelCallVerdict>;
  /** Ends the call (its slot frees) with the tokens it used (0 when unknown: it failed or was aborted). */
  finish(callId: string, tokens: number): Promise<void>;
}
