/**
 * The SQLite store's writes of runs and events, run inside the caller's transaction: a
 * new run (its spec, labels and first events) and an append, each planned by the shared
 * planner. An append rewrites the run's small state only when more than the event count
 * and time changed (see `stateAtHead`): the state is otherwise derived at read time.
 */
import type Database from 'better-sqlite3';
import { WeftError } from '../../../core/errors.js';
import type { IdGenerator } from '../../../core/ids.js';
import { planAppend, type AppendContext } from '../../model/plan-append.js';
import type { QuestionRecord } from '../../model/question.js';
import { RESERVED_EVENT_TYPES } from '../../model/event-types.js';
import type { NewRunEvent, RunEvent } from '../../model/run-event.js';
import type { RunState } from '../../model/run-record.js';
import type { Clock } from '../run-store.js';
import { becameClaimable, type ChangeCollector } from '../store-change.js';
import { createRunEvents, runId, runNotFound, statusChangeEndsLease } from '../store-input.js';
import { GET_HEAD, questionFromRow, stateAtHead, stateColumns, type EventHead } from './run-rows.js';
import type { ImportedRun } from './sqlite-run-store.js';
import { onlyCountAndTimeChanged, type RunStateCache } from './state-cache.js';

export const GET_STATE = 'SELECT state FROM runs WHERE id = ?';
/** The newest event in one descent of the events key (the head columns of a search take two). */
const NO_HEAD: EventHead = { head_seq: null, head_at: null };
const GET_QUESTION = 'SELECT record FROM questions WHERE id = ?';

export class SqliteRunWrites {
  readonly #stmt: <Row = unknown>(sql: string) => Database.Statement<Row>;
  readonly #states: RunStateCache;
  readonly #clock: Clock;
  readonly #newId: IdGenerator;
  /** What this store wrote, for its change notices (told once the transaction commits). */
  readonly #written: ChangeCollector;

  constructor(
    stmt: <Row = unknown>(sql: string) => Database.Statement<Row>,
    states: RunStateCache,
    clock: Clock,
    newId: IdGenerator,
    written: ChangeCollector,
  ) {
    this.#stmt = stmt;
    this.#states = states;
    this.#clock = clock;
    this.#newId = newId;
    this.#written = written;
  }

  lookupQuestion(id: string): QuestionRecord | undefined {
    const row = this.#stmt<{ record: string }>(GET_QUESTION).get(id);
    return row === undefined ? undefined : questionFromRow(row);
  }

  #context(id: string, allowReserved: boolean): AppendContext {
    return { runId: id, now: Math.trunc(this.#clock()), allowReserved, lookupQuestion: (questionId) => this.lookupQuestion(questionId) };
  }

  /** Creates one run (inside the caller's transaction); returns the stored spec and state. */
  importRun(item: ImportedRun): { spec: string; state: string } {
    const id = runId(item.run?.id ?? this.#newId());
    const created = createRunEvents(item.run);
    const reserved = item.events?.find((event) => RESERVED_EVENT_TYPES.has(event?.type));
    if (reserved !== undefined)
      throw new WeftError('RUN_INVALID_PARAMS', `Imported events cannot include '${reserved.type}'; it is written by the store itself.`);
    if (item.createdAt !== undefined) created.forEach((event) => (event.at = item.createdAt));
    if (this.#stmt(GET_STATE).get(id) !== undefined) throw new WeftError('RUN_INVALID_PARAMS', `A run with id ${id} already exists.`);
    if (item.run.parentId !== undefined && this.#stmt(GET_STATE).get(item.run.parentId) === undefined) throw runNotFound(item.run.parentId);
    const { spec, state, events, payloadTexts, questions } = planAppend(
      undefined,
      [...created, ...(item.events ?? [])],
      this.#context(id, true),
    );
    if (spec === undefined) throw new WeftError('INTERNAL', `Creating run ${id} produced no spec.`);
    const columns = stateColumns(state);
    const specText = JSON.stringify(spec);
    this.#stmt(
      'INSERT INTO runs (id, workflow, status, archived, parent_id, created_at, updated_at, state, priority, concurrency) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(
      id,
      spec.workflow,
      columns.status,
      columns.archived,
      columns.parentId,
      spec.createdAt,
      columns.updatedAt,
      columns.state,
      spec.priority ?? 0,
      spec.concurrency === undefined ? null : JSON.stringify(spec.concurrency),
    );
    this.#stmt('INSERT INTO run_specs (id, spec) VALUES (?, ?)').run(id, specText);
    const label = this.#stmt('INSERT INTO run_labels (key, value, created_at, run_id) VALUES (?, ?, ?, ?)');
    for (const [key, value] of Object.entries(spec.labels)) label.run(key, value, spec.createdAt, id);
    this.#writeEvents(events, payloadTexts, questions);
    this.#written.run({ id, headSeq: state.counts.events, status: state.status }, becameClaimable(undefined, state.status));
    return { spec: specText, state: columns.state };
  }

  append(id: string, events: NewRunEvent[], allowReserved: boolean): RunEvent[] {
    const before = this.#states.get(id) ?? this.#readState(id);
    const plan = planAppend(before, events, this.#context(id, allowReserved));
    const last = plan.events[plan.events.length - 1];
    if (last === undefined) return [];
    this.#writeEvents(plan.events, plan.payloadTexts, plan.questions);
    this.#states.set(id, plan.state);
    this.#written.run({ id, headSeq: last.seq, status: plan.state.status }, becameClaimable(before.status, plan.state.status));
    if (last.at === plan.state.updatedAt && onlyCountAndTimeChanged(before, plan.state)) return plan.events;
    const after = stateColumns(plan.state);
    if (before.status === after.status && before.archived === plan.state.archived && (before.parentId ?? null) === after.parentId) {
      this.#stmt('UPDATE runs SET updated_at = ?, state = ? WHERE id = ?').run(after.updatedAt, after.state, id);
    } else {
      const endsLease = statusChangeEndsLease(before.status, plan.state.status) ? 1 : 0;
      this.#stmt(
        'UPDATE runs SET status = ?, archived = ?, parent_id = ?, updated_at = ?, state = ?, lease_owner = CASE WHEN ? THEN NULL ELSE lease_owner END, lease_expires_at = CASE WHEN ? THEN 0 ELSE lease_expires_at END WHERE id = ?',
      ).run(after.status, after.archived, after.parentId, after.updatedAt, after.state, endsLease, endsLease, id);
    }
    return plan.events;
  }

  /** The run's state at its newest event, from its row and that event (see `stateAtHead`). */
  #readState(id: string): RunState {
    const row = this.#stmt<{ state: string }>(GET_STATE).get(id);
    if (row === undefined) throw runNotFound(id);
    return stateAtHead(JSON.parse(row.state) as RunState, this.#stmt<EventHead>(GET_HEAD).get(id) ?? NO_HEAD);
  }

  #writeEvents(events: RunEvent[], payloadTexts: string[], questions: QuestionRecord[]): void {
    const insertEvent = this.#stmt('INSERT INTO events (run_id, seq, at, type, stage_id, payload) VALUES (?, ?, ?, ?, ?, ?)');
    events.forEach((event, index) =>
      insertEvent.run(
        event.runId,
        event.seq,
        event.at,
        event.type,
        event.stageId ?? null,
        payloadTexts[index] ?? JSON.stringify(event.payload),
      ),
    );
    const saveQuestion = this.#stmt(
      'INSERT INTO questions (id, run_id, status, asked_at, record) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET status = excluded.status, record = excluded.record',
    );
    for (const question of questions)
      saveQuestion.run(question.id, question.runId, question.status, question.askedAt, JSON.stringify(question));
  }
}
