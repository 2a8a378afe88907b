/**
 * The one storage interface of the run engine (spec §4.3): runs, their append-only event
 * logs, questions, runner leases and the runtime MCP server catalogue. All methods are
 * async and speak only model types, so a PostgreSQL store can sit behind it as well as
 * the embedded SQLite one and the in-memory one for tests.
 */
import type { IdGenerator } from '../../core/ids.js';
import type { RunBudgetPayload } from '../model/event-types.js';
import type { JsonObject } from '../model/json.js';
import type { QuestionRecord } from '../model/question.js';
import type { NewRunEvent, RunEvent } from '../model/run-event.js';
import type { RunRecord } from '../model/run-record.js';
import type { RunStatus } from '../model/run-status.js';
import type { RunOrigin, RunWorkspace } from '../model/run-workspace.js';
import type { SandboxSpec } from '../../core/sandbox/sandbox-rules.js';
import type { ConcurrencySlot } from '../model/run-concurrency.js';
import type { StoreChangeListener } from './store-change.js';

/** Epoch milliseconds; injected so tests can expire leases without waiting. */
export type Clock = () => number;

export interface RunStoreOptions {
  clock?: Clock;
  newId?: IdGenerator;
}

export interface CreateRunParams {
  /** A ULID chosen by the caller; generated when absent. */
  id?: string;
  workflow: string;
  workflowPath: string;
  goal?: string;
  inputs?: JsonObject;
  labels?: Record<string, string>;
  parentId?: string;
  autoApprove?: boolean;
  dryRun?: boolean;
  model?: string;
  cwd: string;
  /** See `RunSpec.envFingerprint`; child runs inherit their parent's. */
  envFingerprint?: string;
  /** See `RunSpec.budget`. */
  budget?: RunBudgetPayload;
  /** See `RunSpec.priority`. */
  priority?: number;
  /** See `RunSpec.workspace`. */
  workspace?: RunWorkspace;
  /** See `RunSpec.origin`. */
  origin?: RunOrigin;
  /** See `RunSpec.sandbox`. */
  sandbox?: SandboxSpec;
  /** See `RunSpec.concurrency`: resolved keys, each at most once. */
  concurrency?: ConcurrencySlot[];
  /**
   * Move the new run on from `submitted` in the same transaction (a `run-status-changed`
   * event follows `run-created`), so no crash can leave it behind in `submitted`.
   */
  initialStatus?: 'pending' | 'queued';
}

/** Which runs a search returns; every field given must match. */
export interface RunFilter {
  ids?: string[];
  /** Direct children of this run. */
  parentId?: string;
  workflow?: string;
  /** Every label given must match. */
  labels?: Record<string, string>;
  status?: RunStatus[];
  /** `false` (default) hides archived runs, `true` returns only archived ones, `'any'` both. */
  archived?: boolean | 'any';
  /** Exclusive lower bound on `createdAt` (epoch ms). */
  createdAfter?: number;
  /** Exclusive upper bound on `createdAt` (epoch ms). */
  createdBefore?: number;
  /** Default 50; larger values are capped at 500. */
  limit?: number;
  /** `nextCursor` of the previous page, unchanged. */
  cursor?: string;
}

/** One page of search results. */
export interface RunPage {
  /** Newest first (by `createdAt`, then id). */
  runs: RunRecord[];
  /** Present when more runs match. */
  nextCursor?: string;
}

/** Where a walk over changed runs stands: after this `updatedAt` (epoch ms), then after this id. */
export interface UpdatedCursor {
  updatedAt: number;
  id: string;
}

/** Runs changed after a point, oldest change first. */
export interface UpdatedRunsPage {
  runs: RunRecord[];
  /** Pass as `after` for the next page; absent on the last page. */
  next?: UpdatedCursor;
}

export interface ListEventsOptions {
  /** Only events with a larger seq. */
  afterSeq?: number;
  /** Only events with a smaller seq. */
  beforeSeq?: number;
  types?: string[];
  /** Default 'asc'. */
  direction?: 'asc' | 'desc';
  /** Default 100; larger values are capped at 1000. */
  limit?: number;
}

/** Which runs a runner may claim. */
export interface ClaimFilter {
  /** Only runs created with this environment fingerprint (a runner started for a creator); default any run. */
  envFingerprint?: string;
}

export interface McpServerEntry {
  name: string;
  config: JsonObject;
  updatedAt: number;
}

export interface AppendOptions {
  /**
   * Fencing: the runner appending under its lease. The append is refused with
   * `RUN_LEASE_LOST` when another runner holds the run's lease now (it was taken over).
   */
  leaseOwner?: string;
}

export type { RunChange, StoreChange, StoreChangeListener } from './store-change.js';

export const SEARCH_LIMITS = { default: 50, max: 500 } as const;
export const EVENT_LIMITS = { default: 100, max: 1000 } as const;

/**
 * Errors are `WeftError`s: `INVALID_ID` for any id that is not a ULID, `RUN_NOT_FOUND`,
 * `RUN_INVALID_TRANSITION`, `RUN_NOT_TERMINAL`, `RUN_PARENT_CYCLE`, `RUN_INVALID_PARAMS`,
 * `QUESTION_NOT_FOUND`, `QUESTION_NOT_PENDING`, `RUN_LEASE_LOST`, and `STORE_FAILED` when the storage
 * itself fails (its message says what to do).
 *
 * @example
 * const run = await store.createRun({ workflow: 'fix', workflowPath: 'fix.toml', cwd, initialStatus: 'queued' });
 * await store.appendEvents(run.id, [{ type: 'run-status-changed', payload: { from: 'queued', to: 'starting' } }]);
 */
export interface RunStore {
  /** Creates a run in `submitted` (or `initialStatus`) with its `run-created` event. */
  createRun(params: CreateRunParams): Promise<RunRecord>;
  getRun(id: string): Promise<RunRecord | undefined>;
  /**
   * The seq of the run's newest event (what `getRun(id).counts.events` says), or undefined
   * when there is no such run: one cheap read for whoever only wants to know whether the
   * log grew (a runner's control watch reads it on every change notice).
   */
  headSeq(id: string): Promise<number | undefined>;
  searchRuns(filter?: RunFilter): Promise<RunPage>;
  /**
   * Runs whose summary changed after `after`, archived ones included, ordered by the time
   * of that change then id (at most `limit`, default 50, capped at 500) — what a live runs
   * list follows. Events that change only a run's event count and time (model turns, tool
   * results, logs) may not count as a change. Times come from the writers' clocks, so a
   * change can become readable after one with a later time: a follower re-reads a
   * little before its last point.
   */
  listRunsUpdatedAfter(after: UpdatedCursor, limit?: number): Promise<UpdatedRunsPage>;
  /**
   * Appends atomically with consecutive seqs and applies the projection in the same
   * transaction; status changes are `run-status-changed` events checked against the
   * transition table, so of two writers moving a run out of one state only one wins.
   */
  appendEvents(runId: string, events: NewRunEvent[], options?: AppendOptions): Promise<RunEvent[]>;
  listEvents(runId: string, options?: ListEventsOptions): Promise<RunEvent[]>;
  /** Archives a terminal run, or unarchives; appends `run-archived` / `run-unarchived` when it changes. */
  setArchived(runId: string, archived: boolean): Promise<RunRecord>;
  /** Links a run to a parent (or unlinks with null); refuses self-links and cycles. */
  setParent(runId: string, parentId: string | null): Promise<RunRecord>;
  listQuestions(runId: string, options?: { pending?: boolean }): Promise<QuestionRecord[]>;
  getQuestion(id: string): Promise<QuestionRecord | undefined>;
  /**
   * Claims one run for a runner: a run whose lease expired (or was released) while it was
   * starting, running or blocked first, else the oldest unleased `queued` run, among the
   * runs `filter` allows and whose concurrency keys all have room (a key is held by every
   * unfinished run carrying it under a live lease, on any host). Never hands one run to two
   * workers, nor a key to more runs than its limit.
   */
  claimRun(workerId: string, leaseMs: number, now?: number, filter?: ClaimFilter): Promise<RunRecord | undefined>;
  /**
   * How many runs hold each concurrency key now: unfinished runs carrying it under a live
   * lease (what a claim counts). Keys nobody holds count 0. For showing why a run waits.
   */
  concurrencyHeld(keys: readonly string[], now?: number): Promise<Record<string, number>>;
  /** Extends the lease; false when the worker no longer holds it. */
  renewLease(runId: string, workerId: string, leaseMs: number): Promise<boolean>;
  /**
   * Gives the lease up; false when the worker did not hold it. A runner that knows the
   * holder died also calls it with the holder's id, so the run can be claimed at once.
   */
  releaseLease(runId: string, workerId: string): Promise<boolean>;
  putMcpServer(name: string, config: JsonObject): Promise<McpServerEntry>;
  /** False when there was no such server. */
  deleteMcpServer(name: string): Promise<boolean>;
  listMcpServers(): Promise<McpServerEntry[]>;
  /** Deletes a terminal run with its events and questions; its children lose their parent link. */
  deleteRun(id: string): Promise<void>;
  /**
   * Calls `listener` soon after a write to the store becomes readable — a write by this
   * process or by any other one sharing the store (runners execute runs elsewhere) — so
   * whoever waits for a run re-reads it then instead of polling. A notice names the runs
   * written (with the head seq each reached, when known) and says whether a run may have
   * become claimable (created or moved to `queued`, a lease released or ended), so a
   * listener re-reads only for the runs it follows; or it says `unknown`, and anything may
   * have changed (the store's safety tick, a reconnect, writes it cannot attribute, any
   * change to the MCP server catalogue). An `unknown` notice may come at any time; several
   * writes may share one notice. Never called synchronously from `watchChanges` or from a
   * write call. Returns the function that stops the notices; `close()` stops them all.
   *
   * @example
   * const stop = store.watchChanges((change) => {
   *   if (mayConcernRun(change, runId)) void recheck();
   * });
   * // … later
   * stop();
   */
  watchChanges(listener: StoreChangeListener): () => void;
  close(): Promise<void>;
}
