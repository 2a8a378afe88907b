/**
 * Writing new runs: one run with its first events in one statement (create, `weft store
 * migrate`), or many at once for bulk loads — each planned by the shared planner with the
 * store-written event types allowed.
 */
import { WeftError } from '../../../core/errors.js';
import type { IdGenerator } from '../../../core/ids.js';
import { planAppend, type AppendPlan } from '../../model/plan-append.js';
import { RESERVED_EVENT_TYPES } from '../../model/event-types.js';
import type { NewRunEvent } from '../../model/run-event.js';
import type { RunRecord } from '../../model/run-record.js';
import type { Clock } from '../run-store.js';
import { stateColumns } from '../sqlite/run-rows.js';
import type { ImportedRun } from '../sqlite/sqlite-run-store.js';
import { createRunEvents, runId, runNotFound } from '../store-input.js';
import { isForeignKeyViolation, isUniqueViolation } from './pg-errors.js';
import type { PgGroupAppend } from './pg-group-append.js';
import { recordOf } from './pg-run-rows.js';
import type { PgStatements } from './pg-statements.js';
import { BULK_EVENTS, BULK_QUESTIONS, BULK_RUNS, bulkParams, CREATE, writeParams } from './pg-write-sql.js';

export class PgNewRuns {
  readonly #sql: PgStatements;
  readonly #appends: PgGroupAppend;
  readonly #clock: Clock;
  readonly #newId: IdGenerator;

  constructor(sql: PgStatements, appends: PgGroupAppend, clock: Clock, newId: IdGenerator) {
    this.#sql = sql;
    this.#appends = appends;
    this.#clock = clock;
    this.#newId = newId;
  }

  /** Creates a run (its id given or new). */
  async insert(item: ImportedRun): Promise<RunRecord> {
    const id = runId(item.run?.id ?? this.#newId());
    return this.insertPlanned(id, importedEvents(item));
  }

  /** Writes a new run whose whole log is `events`, `run-created` first; returns it as written (no read back). */
  async insertPlanned(id: string, events: readonly NewRunEvent[]): Promise<RunRecord> {
    const plan = this.#planNew(id, events);
    const { spec, state } = plan as Required<AppendPlan>;
    const columns = stateColumns(state);
    const specText = JSON.stringify(spec);
    const params = [
      id,
      spec.workflow,
      spec.createdAt,
      JSON.stringify(spec.labels),
      specText,
      columns.status,
      columns.archived,
      columns.parentId,
      columns.updatedAt,
      columns.state,
      ...writeParams(plan),
      state.counts.events,
    ];
    try {
      await this.#sql.rows('create a run', CREATE, params);
      this.#sql.notifyChanges([{ id, headSeq: state.counts.events, status: state.status }], state.status === 'queued');
    } catch (error) {
      const cause = WeftError.is(error) ? error.cause : error;
      if (isUniqueViolation(cause)) throw new WeftError('RUN_INVALID_PARAMS', `A run with id ${id} already exists.`);
      if (isForeignKeyViolation(cause) && columns.parentId !== null) throw runNotFound(columns.parentId);
      throw error;
    }
    this.#appends.remember(id, state);
    return recordOf({ spec: specText, state: columns.state, lease_owner: null, lease_expires_at: 0 });
  }

  /**
   * Bulk load (benchmarks, imports from another store): plans each run with the shared
   * planner, then writes `batchSize` runs per transaction as three multi-row inserts.
   */
  async importRuns(items: Iterable<ImportedRun>, batchSize: number): Promise<number> {
    let batch: { id: string; plan: AppendPlan }[] = [];
    let count = 0;
    const flush = async () => {
      const { runs, events, questions } = bulkParams(batch);
      await this.#sql.transaction('import runs', async (query) => {
        await query(BULK_RUNS, runs);
        await query(BULK_EVENTS, events);
        if (questions[0]?.length) await query(BULK_QUESTIONS, questions);
      });
      this.#sql.notifyChanges(
        batch.map(({ id, plan }) => ({ id, headSeq: plan.state.counts.events, status: plan.state.status })),
        batch.some(({ plan }) => plan.state.status === 'queued'),
      );
      count += batch.length;
      batch = [];
    };
    for (const item of items) {
      const id = runId(item.run?.id ?? this.#newId());
      batch.push({ id, plan: this.#planNew(id, importedEvents(item)) });
      if (batch.length >= batchSize) await flush();
    }
    if (batch.length > 0) await flush();
    // Fresh statistics, so searches over what was just loaded get good plans before autovacuum's next pass.
    if (count > 0) await this.#sql.rows('import runs', 'ANALYZE runs', []);
    return count;
  }

  #planNew(id: string, events: readonly NewRunEvent[]): AppendPlan {
    const plan = planAppend(undefined, events, {
      runId: id,
      now: Math.trunc(this.#clock()),
      allowReserved: true,
      lookupQuestion: () => undefined,
    });
    if (plan.spec === undefined) throw new WeftError('INTERNAL', `Creating run ${id} produced no spec.`);
    return plan;
  }
}

/** A new run's log: `run-created` (and the move to its initial status), then the imported events. */
function importedEvents(item: ImportedRun): NewRunEvent[] {
  const created = createRunEvents(item.run);
  const reserved = item.events?.find((event) => RESERVED_EVENT_TYPES.has(event?.type));
  if (reserved !== undefined)
    throw new WeftError('RUN_INVALID_PARAMS', `Imported events cannot include '${reserved.type}'; it is written by the store itself.`);
  if (item.createdAt !== undefined) created.forEach((event) => (event.at = item.createdAt));
  return [...created, ...(item.events ?? [])];
}
