/**
 * Group commit for PostgreSQL appends: the appends that arrive in one turn of the event
 * loop are planned together and written by one statement (APPEND_BATCH), so 64 writers
 * cost a few round trips and commits instead of 64. Each run's appends are chained in
 * arrival order onto one row update; that update happens only if the run's head is still
 * the one planned on and, when fenced, the lease still the runner's, so the checks stay
 * per run. A run whose update did not happen is read again and planned anew in the next
 * round; a request the planner refuses fails alone. If the statement itself fails (a
 * foreign key, a deadlock between two hosts' batches), every request runs again on its
 * own, so one request failing never fails the others.
 *
 * More than one batch may be in flight, each on its own pool connection: appends that
 * arrive while a batch is out go in the next one at once instead of waiting for its round
 * trip and commit, and a batch held up in the database (a row another host keeps locked)
 * does not hold up the other runs. A run is in one batch at a time: its later appends wait
 * for that batch (retries included) to end, which keeps them in the order they were made.
 * A queue is split over free slots only when each part still holds many runs: measured
 * with 64 writers on 2 cores shared with the server, four batches of 16 cost 45 % more CPU
 * per event (server and weft) than one of 64, and gave fewer events/s.
 */
import { WeftError } from '../../../core/errors.js';
import { planAppend, type AppendPlan } from '../../model/plan-append.js';
import type { QuestionRecord } from '../../model/question.js';
import { RUN_EVENT } from '../../model/event-types.js';
import type { NewRunEvent, RunEvent } from '../../model/run-event.js';
import type { RunState } from '../../model/run-record.js';
import type { Clock } from '../run-store.js';
import { questionFromRow, stateColumns } from '../sqlite/run-rows.js';
import { checkFence, runNotFound, statusChangeEndsLease } from '../store-input.js';
import { scalarArray, textArray } from './pg-array-literal.js';
import { pgStoreFailed } from './pg-errors.js';
import type { PgStatements } from './pg-statements.js';
import { APPEND_BATCH } from './pg-write-sql.js';

/** Rounds of "plan, find the head moved, read again" before an append gives up. */
const APPEND_ATTEMPTS = 50;

export interface GroupAppendLimits {
  /** Batches written at once (each holds a pool connection while in flight). */
  inFlight: number;
  /** When more batches could start, the waiting runs are shared out among them, but never fewer than this many to a batch (a statement and a commit each). */
  minRunsToSplit: number;
}

export const DEFAULT_GROUP_APPEND_LIMITS: GroupAppendLimits = { inFlight: 2, minRunsToSplit: 64 };

interface AppendRequest {
  id: string;
  events: NewRunEvent[];
  allowReserved: boolean;
  leaseOwner: string | undefined;
  attempts: number;
  resolve(events: RunEvent[]): void;
  reject(error: unknown): void;
}

/** One run's share of a round: the requests chained onto its head, and the row they write. */
interface RunWrite {
  id: string;
  head: number;
  state: RunState;
  endsLease: boolean;
  fence: string | undefined;
  planned: { request: AppendRequest; plan: AppendPlan }[];
}

export class PgGroupAppend {
  readonly #sql: PgStatements;
  readonly #clock: Clock;
  readonly #database: string;
  /** Each run's state after this store's last write to it; a moved head shows it stale. */
  readonly #states = new Map<string, RunState>();
  readonly #limits: GroupAppendLimits;
  #queue: AppendRequest[] = [];
  /** Runs with a batch in flight: their new requests wait in the queue. */
  readonly #busy = new Set<string>();
  readonly #flights = new Set<Promise<void>>();
  #scheduled: Promise<void> | undefined;

  constructor(sql: PgStatements, clock: Clock, database: string, limits: GroupAppendLimits = DEFAULT_GROUP_APPEND_LIMITS) {
    this.#sql = sql;
    this.#clock = clock;
    this.#database = database;
    this.#limits = limits;
  }

  /** Appends in a statement shared with the other appends of this turn of the event loop. */
  append(id: string, events: NewRunEvent[], allowReserved: boolean, leaseOwner?: string): Promise<RunEvent[]> {
    return new Promise<RunEvent[]>((resolve, reject) => {
      this.#queue.push({ id, events, allowReserved, leaseOwner, attempts: 0, resolve, reject });
      this.#scheduled ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        this.#scheduled = undefined;
        this.#launch();
      });
    });
  }

  /** Remembers the state a write of the store's own left (a new run). */
  remember(id: string, state: RunState): void {
    this.#states.set(id, state);
  }

  forget(id: string): void {
    this.#states.delete(id);
  }

  /** Resolves once every queued append has been written or refused. */
  async idle(): Promise<void> {
    while (this.#scheduled !== undefined || this.#flights.size > 0) await Promise.all([this.#scheduled, ...this.#flights]);
  }

  /** Starts batches from the queue while there is room in flight and a queued run is not in one already. */
  #launch(): void {
    while (this.#flights.size < this.#limits.inFlight) {
      const batch = this.#takeBatch();
      if (batch.length === 0) return;
      const runs = new Set(batch.map((request) => request.id));
      for (const id of runs) this.#busy.add(id);
      const flight = this.#flush(batch).finally(() => {
        for (const id of runs) this.#busy.delete(id);
        this.#flights.delete(flight);
        this.#launch();
      });
      this.#flights.add(flight);
    }
  }

  /**
   * The queued requests of the next batch, in order: every request of the runs it takes
   * (none of them busy). When more batches could start, the runs waiting are shared out
   * evenly (at least `minRunsToSplit` each), so that they go in flight side by side.
   */
  #takeBatch(): AppendRequest[] {
    const free = this.#queue.filter((request) => !this.#busy.has(request.id));
    const waiting = new Set(free.map((request) => request.id)).size;
    const slots = this.#limits.inFlight - this.#flights.size;
    const size = slots <= 1 ? waiting : Math.min(waiting, Math.max(this.#limits.minRunsToSplit, Math.ceil(waiting / slots)));
    const runs = new Set<string>();
    const batch: AppendRequest[] = [];
    const kept: AppendRequest[] = [];
    for (const request of this.#queue) {
      if (!this.#busy.has(request.id) && (runs.has(request.id) || runs.size < size)) {
        runs.add(request.id);
        batch.push(request);
      } else {
        kept.push(request);
      }
    }
    this.#queue = kept;
    return batch;
  }

  /** Writes a batch, round after round, until every request in it is written or refused. */
  async #flush(requests: AppendRequest[]): Promise<void> {
    let pending = requests;
    try {
      while (pending.length > 0) pending = await this.#round(pending, true);
    } catch (error) {
      for (const request of pending) request.reject(error);
    }
  }

  /** Plans and writes `requests` once; returns those that must go again (their run moved on). */
  async #round(requests: AppendRequest[], shared: boolean): Promise<AppendRequest[]> {
    const again: AppendRequest[] = [];
    let writes: RunWrite[];
    try {
      writes = await this.#plan(requests, again);
    } catch (error) {
      for (const request of requests) request.reject(error);
      return [];
    }
    const rows = writes.filter((write) => write.planned.some(({ plan }) => plan.events.length > 0));
    const sent = new Set(rows);
    let written: Set<string>;
    try {
      written =
        rows.length === 0
          ? new Set()
          : new Set((await this.#sql.rows<{ id: string }>('append events', APPEND_BATCH, batchParams(rows))).map((row) => row.id));
    } catch (error) {
      const inBatch = writes.flatMap((write) => write.planned.map(({ request }) => request));
      if (!shared || inBatch.length === 1 || isUnreachable(error)) {
        for (const request of inBatch) request.reject(error);
      } else {
        // Every request on its own, in order: the one at fault fails alone.
        for (const request of inBatch) {
          for (let alone = [request]; alone.length > 0;) alone = await this.#round(alone, false);
        }
      }
      return again;
    }
    if (written.size > 0) {
      const done = rows.filter((write) => written.has(write.id));
      this.#sql.notifyChanges(
        done.map(({ id, state }) => ({ id, headSeq: state.counts.events, status: state.status })),
        done.some((write) => write.state.status === 'queued'),
      );
    }
    const retry: AppendRequest[] = [];
    for (const write of writes) {
      const moved = sent.has(write) && !written.has(write.id);
      if (!moved) {
        if (sent.has(write)) this.#states.set(write.id, write.state);
        for (const { request, plan } of write.planned) request.resolve(plan.events);
        continue;
      }
      // Another writer moved the head (or took the lease): read the run again and plan anew.
      this.#states.delete(write.id);
      for (const { request } of write.planned) {
        request.attempts += 1;
        if (request.attempts < APPEND_ATTEMPTS) retry.push(request);
        else
          request.reject(
            pgStoreFailed(
              this.#database,
              'conflict',
              `Could not append events to run ${request.id}: other writers kept appending first through ${APPEND_ATTEMPTS} attempts. Retry.`,
            ),
          );
      }
    }
    // A run's retried requests come before its deferred ones, as they were made.
    const position = new Map(requests.map((request, index) => [request, index]));
    return [...retry, ...again].sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0));
  }

  /**
   * Chains each run's requests onto its head (remembered, or read for all runs at once),
   * in order. A run's chain stops at a request of another runner or after one that ends the
   * lease, so the database judges the fence of what follows; the rest go into `again`.
   */
  async #plan(requests: AppendRequest[], again: AppendRequest[]): Promise<RunWrite[]> {
    const byRun = new Map<string, AppendRequest[]>();
    for (const request of requests) byRun.set(request.id, [...(byRun.get(request.id) ?? []), request]);
    const heads = await this.#readHeads([...byRun.keys()].filter((id) => !this.#states.has(id)));
    // A stage's end or the run's end withdraws the questions still pending there, so the planner needs those too.
    const pending = [...byRun.keys()].flatMap((id) => (this.#states.get(id) ?? heads.get(id)?.state)?.pendingQuestionIds ?? []);
    const questions = await this.#lookupQuestions(requests, pending);
    const writes: RunWrite[] = [];
    for (const [id, queued] of byRun) {
      const cached = this.#states.get(id);
      const head = cached === undefined ? heads.get(id) : { state: cached, leaseOwner: null };
      const fence = queued[0]?.leaseOwner;
      if (head === undefined) {
        for (const request of queued) request.reject(runNotFound(id));
        continue;
      }
      const write: RunWrite = { id, head: head.state.counts.events, state: head.state, endsLease: false, fence, planned: [] };
      for (const [index, request] of queued.entries()) {
        if (request.leaseOwner !== fence || write.endsLease) {
          again.push(...queued.slice(index));
          break;
        }
        try {
          if (cached === undefined) checkFence(id, head.leaseOwner, head.state.status, request.leaseOwner);
          const plan = planAppend(write.state, request.events, {
            runId: id,
            now: Math.trunc(this.#clock()),
            allowReserved: request.allowReserved,
            lookupQuestion: (questionId) => questions.get(questionId),
          });
          write.endsLease = statusChangeEndsLease(write.state.status, plan.state.status);
          write.state = plan.state;
          for (const question of plan.questions) questions.set(question.id, question);
          write.planned.push({ request, plan });
        } catch (error) {
          if (cached === undefined) {
            request.reject(error);
            continue;
          }
          // A refusal judged on a remembered state may not hold for the state now.
          this.#states.delete(id);
          again.push(...queued.slice(index));
          break;
        }
      }
      writes.push(write);
    }
    return writes;
  }

  async #readHeads(ids: string[]): Promise<Map<string, { state: RunState; leaseOwner: string | null }>> {
    if (ids.length === 0) return new Map();
    const rows = await this.#sql.rows<{ id: string; state: string; lease_owner: string | null }>(
      'read a run',
      'SELECT id, state, lease_owner FROM runs WHERE id = ANY($1::text[])',
      [ids],
    );
    return new Map(rows.map((row) => [row.id, { state: JSON.parse(row.state) as RunState, leaseOwner: row.lease_owner }]));
  }

  /** The questions the requests ask or answer and those pending on their runs, so the planner can look them up without a query of its own. */
  async #lookupQuestions(requests: AppendRequest[], pending: readonly string[]): Promise<Map<string, QuestionRecord>> {
    const ids = [...new Set([...requests.flatMap((request) => referencedQuestions(request.events)), ...pending])];
    if (ids.length === 0) return new Map();
    const rows = await this.#sql.rows<{ record: string }>('append events', 'SELECT record FROM questions WHERE id = ANY($1::text[])', [
      ids,
    ]);
    return new Map(rows.map((row) => questionFromRow(row)).map((question) => [question.id, question]));
  }
}

function isUnreachable(error: unknown): boolean {
  const reason = WeftError.is(error) ? error.data.reason : undefined;
  return reason === 'unavailable' || reason === 'closed';
}

/** Which columns of APPEND_BATCH's runs ($1–$10), events ($11–$16) and questions ($17–$21) are text; the others are numbers or booleans. */
const TEXT_COLUMNS = { runs: [0, 2, 4, 6, 9], events: [0, 3, 4, 5], questions: [0, 1, 2, 4] };

/** The parameters of APPEND_BATCH: one row per run, its chained events, its questions once each (the last record wins). */
function batchParams(writes: readonly RunWrite[]): string[] {
  const runs: unknown[][] = Array.from({ length: 10 }, () => []);
  const events: unknown[][] = Array.from({ length: 6 }, () => []);
  const push = (columns: unknown[][], values: unknown[]) => values.forEach((value, index) => columns[index]?.push(value));
  const questions = new Map<string, unknown[]>();
  // In id order, so two hosts' batches tend to lock the rows they share in the same order (a deadlock fails
  // only the statement, whose requests then run one by one).
  for (const write of [...writes].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const columns = stateColumns(write.state);
    push(runs, [
      write.id,
      write.head,
      columns.status,
      columns.archived,
      columns.parentId,
      columns.updatedAt,
      columns.state,
      write.state.counts.events,
      write.endsLease,
      write.fence ?? null,
    ]);
    for (const { plan } of write.planned) {
      plan.events.forEach((event, index) =>
        push(events, [
          write.id,
          event.seq,
          event.at,
          event.type,
          event.stageId ?? null,
          plan.payloadTexts[index] ?? JSON.stringify(event.payload),
        ]),
      );
      for (const question of plan.questions)
        questions.set(question.id, [question.id, write.id, question.status, question.askedAt, JSON.stringify(question)]);
    }
  }
  const questionColumns: unknown[][] = Array.from({ length: 5 }, () => []);
  for (const values of questions.values()) push(questionColumns, values);
  const literals = (columns: unknown[][], text: number[]) =>
    columns.map((values, index) =>
      text.includes(index) ? textArray(values as (string | null)[]) : scalarArray(values as (number | boolean | null)[]),
    );
  return [
    ...literals(runs, TEXT_COLUMNS.runs),
    ...literals(events, TEXT_COLUMNS.events),
    ...literals(questionColumns, TEXT_COLUMNS.questions),
  ];
}

/** The question ids a batch asks or answers. */
function referencedQuestions(events: NewRunEvent[]): string[] {
  if (!Array.isArray(events)) return [];
  return events
    .filter((event) => event?.type === RUN_EVENT.questionAsked || event?.type === RUN_EVENT.questionAnswered)
    .map((event) => (event.payload as { questionId?: unknown } | undefined)?.questionId)
    .filter((id): id is string => typeof id === 'string');
}
