/**
 * The shared `RunStore`: one PostgreSQL database that workers on many hosts use at once.
 * Each append is one statement — update the run's row only if its head is still the one
 * the plan was made on (and, when fenced, the lease still the runner's), insert the events
 * and questions only if that update happened — so it commits atomically without an
 * explicit transaction, and a writer that lost the race re-reads and plans again. Runs are
 * claimed with `FOR UPDATE SKIP LOCKED`, and every change is announced by NOTIFY (see
 * change-listener.ts). The `runs` row always holds the full projected state.
 */
import pg from 'pg';
import { WeftError } from '../../../core/errors.js';
import { assertUlid, newId as defaultNewId, type IdGenerator } from '../../../core/ids.js';
import { silentLogger, type Logger } from '../../../core/logger.js';
import { normalizeJsonObject, type JsonObject } from '../../model/json.js';
import { planAppend, type AppendPlan } from '../../model/plan-append.js';
import type { QuestionRecord } from '../../model/question.js';
import { RESERVED_EVENT_TYPES, RUN_EVENT } from '../../model/event-types.js';
import type { NewRunEvent, RunEvent } from '../../model/run-event.js';
import type { RunRecord, RunState } from '../../model/run-record.js';
import { isTerminal } from '../../model/run-status.js';
import type { AppendOptions, ClaimFilter, Clock, CreateRunParams, ListEventsOptions, McpServerEntry, RunFilter, RunPage, RunStore, RunStoreOptions, StoreChangeListener } from '../run-store.js';
import { eventFromRow, mcpServerFromRow, questionFromRow, runFromRow, stateColumns, type EventRow, type McpServerRow } from '../sqlite/run-rows.js';
import type { ImportedRun } from '../sqlite/sqlite-run-store.js';
import { checkFence, checkLease, checkParentLink, claimFingerprint, createRunEvents, encodeCursor, mcpServerName, normalizeEventQuery, normalizeFilter, runId, runNotFound, statusChangeEndsLease } from '../store-input.js';
import { PgChangeListener } from './change-listener.js';
import { maskDatabaseUrl } from './database-url.js';
import { migratePostgres } from './migrations.js';
import { isForeignKeyViolation, isUniqueViolation, pgStoreFailed, toPgStoreError } from './pg-errors.js';
import { pgSearchSql, RUN_COLUMNS } from './pg-search.js';
import { APPEND, BULK_EVENTS, BULK_QUESTIONS, BULK_RUNS, bulkParams, CREATE, writeParams } from './pg-write-sql.js';
import { PgStatements } from './pg-statements.js';

export interface PostgresRunStoreOptions extends RunStoreOptions {
  /** `postgres://user:password@host:port/database`; shown only masked. */
  url: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  logger?: Logger;
  /** How often watchers are told regardless, in case a notice was lost (default 1000 ms). */
  safetyTickMs?: number;
}

interface RunRow {
  spec: string;
  state: string;
  lease_owner: string | null;
  lease_expires_at: number;
}

/** Rounds of "plan, find the head moved, read again" before an append gives up. */
const APPEND_ATTEMPTS = 50;
const INT8_OID = 20;
/** BIGINT columns hold epoch milliseconds, well inside a double's exact range. */
const TYPES = { getTypeParser: (oid: number, format?: string) => (oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format as 'text')) } as pg.CustomTypesConfig;

const GET_RUN = `SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`;
const GET_HEAD_SEQ = 'SELECT head_seq FROM runs WHERE id = $1';
const GET_HEAD = 'SELECT state, lease_owner FROM runs WHERE id = $1';
const CLAIM = (pick: string) => `UPDATE runs SET lease_owner = $1, lease_expires_at = $2 WHERE id = (${pick} FOR UPDATE SKIP LOCKED) RETURNING ${RUN_COLUMNS}`;
/**
 * A run whose runner died (its lease ran out), oldest lease first; then the oldest queued run.
 * A runner started for a creator also matches the environment fingerprint in the run's spec.
 */
const claimQueries = (sameEnvironment: boolean): [orphan: string, queued: string] => {
  const match = sameEnvironment ? " AND (spec::jsonb ->> 'envFingerprint') = $4" : '';
  return [
    CLAIM(`SELECT id FROM runs WHERE status IN ('starting', 'running', 'blocked') AND lease_expires_at <= $3${match} ORDER BY lease_expires_at, created_at, id LIMIT 1`),
    CLAIM(`SELECT id FROM runs WHERE status = 'queued' AND lease_expires_at <= $3${match} ORDER BY created_at, id LIMIT 1`),
  ];
};
const CLAIM_ANY = claimQueries(false);
const CLAIM_SAME_ENVIRONMENT = claimQueries(true);
export class PostgresRunStore implements RunStore {
  /** The URL with its password masked: the only form of it in messages. */
  readonly database: string;
  readonly #sql: PgStatements;
  readonly #changes: PgChangeListener;
  readonly #clock: Clock;
  readonly #newId: IdGenerator;
  /** Each run's state after this store's last write to it; a moved head shows it stale. */
  readonly #states = new Map<string, RunState>();

  private constructor(sql: PgStatements, changes: PgChangeListener, database: string, clock: Clock, newId: IdGenerator) {
    this.#sql = sql;
    this.#changes = changes;
    this.database = database;
    this.#clock = clock;
    this.#newId = newId;
  }

  /** Connects, migrates (once across all hosts) and starts listening for changes. */
  static async open(options: PostgresRunStoreOptions): Promise<PostgresRunStore> {
    const database = maskDatabaseUrl(options.url);
    const logger = options.logger ?? silentLogger;
    const clock = options.clock ?? Date.now;
    const config: pg.PoolConfig = { connectionString: options.url, types: TYPES, max: options.poolSize ?? 10, application_name: 'weft' };
    const pool = new pg.Pool(config);
    // An idle connection dropped by a restarting server must not crash the process; the next query reconnects.
    pool.on('error', (error) => logger.warn(`PostgreSQL connection at ${database} lost: ${error.message}`));
    try {
      const client = await pool.connect();
      try {
        await migratePostgres(client, database, clock());
      } finally {
        client.release();
      }
      const changes = await PgChangeListener.open({ connectionString: options.url, application_name: 'weft-notices' }, logger, options.safetyTickMs);
      return new PostgresRunStore(new PgStatements(pool, database), changes, database, clock, options.newId ?? defaultNewId);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw toPgStoreError(error, database, 'open the run store');
    }
  }

  async createRun(params: CreateRunParams): Promise<RunRecord> {
    const id = await this.#insertRun({ run: params });
    return (await this.getRun(id)) as RunRecord;
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    runId(id);
    const [row] = await this.#sql.rows<RunRow>('read a run', GET_RUN, [id]);
    return row === undefined ? undefined : recordOf(row);
  }

  async headSeq(id: string): Promise<number | undefined> {
    runId(id);
    const [row] = await this.#sql.rows<{ head_seq: number }>('read a run', GET_HEAD_SEQ, [id]);
    return row?.head_seq;
  }

  async searchRuns(filter?: RunFilter): Promise<RunPage> {
    const query = normalizeFilter(filter);
    const { sql, params } = pgSearchSql(query);
    const rows = await this.#sql.rows<RunRow>('search runs', sql, params);
    const runs = rows.slice(0, query.limit).map(recordOf);
    const last = runs[runs.length - 1];
    return rows.length > query.limit && last ? { runs, nextCursor: encodeCursor(last) } : { runs };
  }

  async appendEvents(id: string, events: NewRunEvent[], options?: AppendOptions): Promise<RunEvent[]> {
    runId(id);
    return this.#append(id, events, false, options?.leaseOwner);
  }

  async listEvents(id: string, options?: ListEventsOptions): Promise<RunEvent[]> {
    runId(id);
    const query = normalizeEventQuery(options);
    const types = query.types === undefined ? '' : 'AND type = ANY($5::text[])';
    const sql = `SELECT seq, at, type, stage_id, payload FROM events WHERE run_id = $1 AND seq > $2::bigint AND seq < $3::bigint ${types} ORDER BY seq ${query.direction === 'asc' ? 'ASC' : 'DESC'} LIMIT $4`;
    const rows = await this.#sql.rows<EventRow>('list events', sql, [id, query.afterSeq, query.beforeSeq, query.limit, ...(query.types === undefined ? [] : [query.types])]);
    if (rows.length === 0) await this.#requireHead(id);
    return rows.map((row) => eventFromRow(id, row));
  }

  async setArchived(id: string, archived: boolean): Promise<RunRecord> {
    runId(id);
    if (typeof archived !== 'boolean') throw new WeftError('RUN_INVALID_PARAMS', 'archived must be true or false.');
    const run = await this.#requireRun(id);
    if (run.archived === archived) return run;
    await this.#append(id, [{ type: archived ? RUN_EVENT.runArchived : RUN_EVENT.runUnarchived, payload: {} }], true);
    return this.#requireRun(id);
  }

  async setParent(id: string, parentId: string | null): Promise<RunRecord> {
    runId(id);
    if (parentId !== null) runId(parentId);
    const run = await this.#requireRun(id);
    if (parentId !== null) {
      const chain = await this.#sql.rows<{ id: string; parent_id: string | null }>(
        'link a run to its parent',
        'WITH RECURSIVE up(id, parent_id) AS (SELECT id, parent_id FROM runs WHERE id = $1 UNION SELECT r.id, r.parent_id FROM runs r JOIN up ON r.id = up.parent_id) SELECT id, parent_id FROM up',
        [parentId],
      );
      const parents = new Map(chain.map((row) => [row.id, row.parent_id]));
      checkParentLink(id, parentId, (ancestor) => parents.get(ancestor));
    }
    if ((run.parentId ?? null) !== parentId) await this.#append(id, [{ type: RUN_EVENT.runParentChanged, payload: { parentId } }], true);
    return this.#requireRun(id);
  }

  async listQuestions(id: string, options: { pending?: boolean } = {}): Promise<QuestionRecord[]> {
    runId(id);
    const pending = options.pending === true ? "AND status = 'pending'" : '';
    const rows = await this.#sql.rows<{ record: string }>('list questions', `SELECT record FROM questions WHERE run_id = $1 ${pending} ORDER BY asked_at, id`, [id]);
    if (rows.length === 0) await this.#requireHead(id);
    return rows.map(questionFromRow);
  }

  async getQuestion(id: string): Promise<QuestionRecord | undefined> {
    assertUlid(id, 'question id');
    const [row] = await this.#sql.rows<{ record: string }>('read a question', 'SELECT record FROM questions WHERE id = $1', [id]);
    return row === undefined ? undefined : questionFromRow(row);
  }

  async claimRun(workerId: string, leaseMs: number, now: number = this.#clock(), filter?: ClaimFilter): Promise<RunRecord | undefined> {
    checkLease(workerId, leaseMs);
    const fingerprint = claimFingerprint(filter);
    for (const sql of fingerprint === undefined ? CLAIM_ANY : CLAIM_SAME_ENVIRONMENT) {
      const [row] = await this.#sql.rows<RunRow>('claim a run', sql, fingerprint === undefined ? [workerId, now + leaseMs, now] : [workerId, now + leaseMs, now, fingerprint]);
      if (row === undefined) continue;
      this.#sql.notifyChanges();
      return recordOf(row);
    }
    return undefined;
  }

  async renewLease(id: string, workerId: string, leaseMs: number): Promise<boolean> {
    runId(id);
    checkLease(workerId, leaseMs);
    return this.#leaseUpdate(id, 'renew a lease', 'UPDATE runs SET lease_expires_at = $3 WHERE id = $1 AND lease_owner = $2', [id, workerId, this.#clock() + leaseMs]);
  }

  async releaseLease(id: string, workerId: string): Promise<boolean> {
    runId(id);
    checkLease(workerId, 1);
    return this.#leaseUpdate(id, 'release a lease', 'UPDATE runs SET lease_owner = NULL, lease_expires_at = 0 WHERE id = $1 AND lease_owner = $2', [id, workerId]);
  }

  async putMcpServer(name: string, config: JsonObject): Promise<McpServerEntry> {
    const entry = { name: mcpServerName(name), config: normalizeJsonObject(config, `config of MCP server '${name}'`), updatedAt: this.#clock() };
    await this.#sql.rows(
      'save an MCP server',
      'INSERT INTO mcp_servers (name, config, updated_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at',
      [entry.name, entry.config.text, entry.updatedAt],
    );
    this.#sql.notifyChanges();
    return { name: entry.name, config: entry.config.value, updatedAt: entry.updatedAt };
  }

  async deleteMcpServer(name: string): Promise<boolean> {
    mcpServerName(name);
    const deleted = (await this.#sql.count('delete an MCP server', 'DELETE FROM mcp_servers WHERE name = $1', [name])) === 1;
    if (deleted) this.#sql.notifyChanges();
    return deleted;
  }

  async listMcpServers(): Promise<McpServerEntry[]> {
    return (await this.#sql.rows<McpServerRow>('list MCP servers', 'SELECT name, config, updated_at FROM mcp_servers ORDER BY name', [])).map(mcpServerFromRow);
  }

  async deleteRun(id: string): Promise<void> {
    runId(id);
    const run = await this.#requireRun(id);
    if (!isTerminal(run.status)) {
      throw new WeftError('RUN_NOT_TERMINAL', `Run ${id} is ${run.status}; only a succeeded, failed or cancelled run can be deleted. Cancel it first.`, { data: { runId: id, status: run.status } });
    }
    for (const child of await this.#sql.rows<{ id: string }>('delete a run', 'SELECT id FROM runs WHERE parent_id = $1', [id])) {
      await this.#append(child.id, [{ type: RUN_EVENT.runParentChanged, payload: { parentId: null } }], true);
    }
    await this.#sql.rows('delete a run', "DELETE FROM runs WHERE id = $1 AND status IN ('succeeded', 'failed', 'cancelled')", [id]);
    this.#sql.notifyChanges();
    this.#states.delete(id);
  }

  /**
   * Bulk load (benchmarks, imports from another store): plans each run with the shared
   * planner, then writes `batchSize` runs per transaction as three multi-row inserts.
   */
  async importRuns(items: Iterable<ImportedRun>, batchSize = 500): Promise<number> {
    let batch: { id: string; plan: AppendPlan }[] = [];
    let count = 0;
    const flush = async () => {
      const { runs, events, questions } = bulkParams(batch);
      await this.#sql.transaction('import runs', async (query) => {
        await query(BULK_RUNS, runs);
        await query(BULK_EVENTS, events);
        if (questions[0]?.length) await query(BULK_QUESTIONS, questions);
      });
      this.#sql.notifyChanges();
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

  /** Keeps a full tool output in the database, so a runner on any host can read it; returns its id. */
  async saveArtifact(runId: string | undefined, label: string, content: string): Promise<string> {
    const id = this.#newId();
    await this.#sql.rows('save an artifact', 'INSERT INTO artifacts (id, run_id, label, created_at, content) VALUES ($1, $2, $3, $4, $5)', [id, runId ?? null, label, this.#clock(), content]);
    return id;
  }

  async readArtifact(id: string): Promise<{ label: string; runId?: string; content: string } | undefined> {
    assertUlid(id, 'artifact id');
    const [row] = await this.#sql.rows<{ label: string; run_id: string | null; content: string }>('read an artifact', 'SELECT label, run_id, content FROM artifacts WHERE id = $1', [id]);
    return row === undefined ? undefined : { label: row.label, ...(row.run_id === null ? {} : { runId: row.run_id }), content: row.content };
  }

  watchChanges(listener: StoreChangeListener): () => void {
    return this.#changes.add(listener);
  }

  async close(): Promise<void> {
    await this.#changes.close();
    await this.#sql.close();
  }

  /**
   * Copies a run from another store as it is: its whole log, `run-created` first, replayed
   * through the planner with the store-written types allowed (`weft store migrate`).
   */
  async copyRun(id: string, events: readonly NewRunEvent[]): Promise<void> {
    await this.#insertPlanned(runId(id), events);
  }

  async #insertRun(item: ImportedRun): Promise<string> {
    const id = runId(item.run?.id ?? this.#newId());
    await this.#insertPlanned(id, importedEvents(item));
    return id;
  }

  #planNew(id: string, events: readonly NewRunEvent[]): AppendPlan {
    const plan = planAppend(undefined, events, { runId: id, now: Math.trunc(this.#clock()), allowReserved: true, lookupQuestion: () => undefined });
    if (plan.spec === undefined) throw new WeftError('INTERNAL', `Creating run ${id} produced no spec.`);
    return plan;
  }

  async #insertPlanned(id: string, events: readonly NewRunEvent[]): Promise<void> {
    const plan = this.#planNew(id, events);
    const { spec, state } = plan as Required<AppendPlan>;
    const columns = stateColumns(state);
    const params = [id, spec.workflow, spec.createdAt, JSON.stringify(spec.labels), JSON.stringify(spec), columns.status, columns.archived, columns.parentId, columns.updatedAt, columns.state, ...writeParams(plan), state.counts.events];
    try {
      await this.#sql.rows('create a run', CREATE, params);
      this.#sql.notifyChanges();
    } catch (error) {
      const cause = WeftError.is(error) ? error.cause : error;
      if (isUniqueViolation(cause)) throw new WeftError('RUN_INVALID_PARAMS', `A run with id ${id} already exists.`);
      if (isForeignKeyViolation(cause) && columns.parentId !== null) throw runNotFound(columns.parentId);
      throw error;
    }
    this.#states.set(id, state);
  }

  async #append(id: string, events: NewRunEvent[], allowReserved: boolean, leaseOwner?: string): Promise<RunEvent[]> {
    const questionIds = referencedQuestions(events);
    for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt += 1) {
      const cached = this.#states.get(id);
      const before = cached ?? (await this.#readHead(id, leaseOwner));
      const known = questionIds.length === 0 ? [] : await this.#sql.rows<{ record: string }>('append events', 'SELECT record FROM questions WHERE id = ANY($1::text[])', [questionIds]);
      const questions = new Map(known.map((row) => [questionFromRow(row).id, questionFromRow(row)]));
      let plan: AppendPlan;
      try {
        plan = planAppend(before, events, { runId: id, now: Math.trunc(this.#clock()), allowReserved, lookupQuestion: (questionId) => questions.get(questionId) });
      } catch (error) {
        // A refusal judged on a remembered state may not hold for the state now.
        if (cached === undefined) throw error;
        this.#states.delete(id);
        continue;
      }
      if (plan.events.length === 0) return [];
      const columns = stateColumns(plan.state);
      const endsLease = statusChangeEndsLease(before.status, plan.state.status);
      const params = [id, before.counts.events, columns.status, columns.archived, columns.parentId, columns.updatedAt, columns.state, plan.state.counts.events, endsLease, leaseOwner ?? null, ...writeParams(plan)];
      const [written] = await this.#sql.rows<{ n: number }>('append events', APPEND, params);
      if (written?.n === 1) {
        this.#sql.notifyChanges();
        this.#states.set(id, plan.state);
        return plan.events;
      }
      // Another writer moved the head (or took the lease): read the run again and plan anew.
      this.#states.delete(id);
    }
    throw pgStoreFailed(this.database, 'conflict', `Could not append events to run ${id}: other writers kept appending first through ${APPEND_ATTEMPTS} attempts. Retry.`);
  }

  /** The run's state now; refuses a fenced runner whose lease another one holds. */
  async #readHead(id: string, leaseOwner?: string): Promise<RunState> {
    const row = await this.#requireHead(id);
    const state = JSON.parse(row.state) as RunState;
    checkFence(id, row.lease_owner, state.status, leaseOwner);
    return state;
  }

  async #requireHead(id: string): Promise<{ state: string; lease_owner: string | null }> {
    const [row] = await this.#sql.rows<{ state: string; lease_owner: string | null }>('read a run', GET_HEAD, [id]);
    if (row === undefined) throw runNotFound(id);
    return row;
  }

  async #requireRun(id: string): Promise<RunRecord> {
    const run = await this.getRun(id);
    if (run === undefined) throw runNotFound(id);
    return run;
  }

  async #leaseUpdate(id: string, action: string, sql: string, params: unknown[]): Promise<boolean> {
    if ((await this.#sql.count(action, sql, params)) === 1) {
      this.#sql.notifyChanges();
      return true;
    }
    await this.#requireHead(id);
    return false;
  }
}

/** A new run's log: `run-created` (and the move to its initial status), then the imported events. */
function importedEvents(item: ImportedRun): NewRunEvent[] {
  const created = createRunEvents(item.run);
  const reserved = item.events?.find((event) => RESERVED_EVENT_TYPES.has(event?.type));
  if (reserved !== undefined) throw new WeftError('RUN_INVALID_PARAMS', `Imported events cannot include '${reserved.type}'; it is written by the store itself.`);
  if (item.createdAt !== undefined) created.forEach((event) => (event.at = item.createdAt));
  return [...created, ...(item.events ?? [])];
}

function recordOf(row: RunRow): RunRecord {
  return runFromRow({ ...row, head_seq: null, head_at: null });
}

/** The question ids a batch asks or answers, so the planner can look them up without a query of its own. */
function referencedQuestions(events: NewRunEvent[]): string[] {
  if (!Array.isArray(events)) return [];
  const ids = events
    .filter((event) => event?.type === RUN_EVENT.questionAsked || event?.type === RUN_EVENT.questionAnswered)
    .map((event) => (event.payload as { questionId?: unknown } | undefined)?.questionId)
    .filter((id): id is string => typeof id === 'string');
  return [...new Set(ids)];
}
