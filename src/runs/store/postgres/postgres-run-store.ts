/**
 * The shared `RunStore`: one PostgreSQL database that workers on many hosts use at once.
 * This file holds the reads and the run-level operations; appends go through a group
 * commit (pg-group-append.ts: one statement per event-loop turn, checked per run against
 * the head planned on and the lease), new runs through pg-new-runs.ts, and leases (claims
 * with `FOR UPDATE SKIP LOCKED`) through pg-leases.ts. Every change is announced by NOTIFY
 * naming the runs written (see change-listener.ts). The `runs` row always holds the full projected state.
 */
import type { ScheduleStore } from '../schedule-store.js';
import { PgScheduleStore } from './pg-schedule-store.js';
import type { ModelCallStore } from '../model-call-store.js';
import { PgModelCallStore } from './pg-model-call-store.js';
import pg from 'pg';
import { WeftError } from '../../../core/errors.js';
import { assertUlid, newId as defaultNewId, type IdGenerator } from '../../../core/ids.js';
import { silentLogger, type Logger } from '../../../core/logger.js';
import { normalizeJsonObject, type JsonObject } from '../../model/json.js';
import type { QuestionRecord } from '../../model/question.js';
import { RUN_EVENT } from '../../model/event-types.js';
import type { NewRunEvent, RunEvent } from '../../model/run-event.js';
import type { RunRecord } from '../../model/run-record.js';
import { isTerminal } from '../../model/run-status.js';
import type {
  AppendOptions,
  ClaimFilter,
  Clock,
  CreateRunParams,
  ListEventsOptions,
  McpServerEntry,
  RunFilter,
  RunPage,
  RunStore,
  RunStoreOptions,
  UpdatedCursor,
  UpdatedRunsPage,
} from '../run-store.js';
import { eventFromRow, mcpServerFromRow, questionFromRow, type EventRow, type McpServerRow } from '../sqlite/run-rows.js';
import type { ImportedRun } from '../sqlite/sqlite-run-store.js';
import {
  checkParentLink,
  encodeCursor,
  mcpServerName,
  normalizeEventQuery,
  normalizeFilter,
  normalizeUpdatedQuery,
  runId,
  runNotFound,
  updatedPage,
} from '../store-input.js';
import type { StoreChangeListener } from '../store-change.js';
import { PgChangeListener } from './change-listener.js';
import { maskDatabaseUrl } from './database-url.js';
import { CHANGE_SPAN_MS, migratePostgres } from './migrations.js';
import { toPgStoreError } from './pg-errors.js';
import { PgGroupAppend, DEFAULT_GROUP_APPEND_LIMITS, type GroupAppendLimits } from './pg-group-append.js';
import { DatabaseClock } from './pg-clock.js';
import { claimRun, concurrencyHeld, releaseLease, renewLease } from './pg-leases.js';
import { PgNewRuns } from './pg-new-runs.js';
import { recordOf, requireHead, RUN_COLUMNS, type RunRow } from './pg-run-rows.js';
import { pgSearchSql } from './pg-search.js';
import { PgStatements } from './pg-statements.js';

export interface PostgresRunStoreOptions extends RunStoreOptions {
  /** `postgres://user:password@host:port/database`; shown only masked. */
  url: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  logger?: Logger;
  /** How often watchers are told regardless, in case a notice was lost (default 1000 ms). */
  safetyTickMs?: number;
  /** Append batches written at once, and how they share the waiting runs (default 2, split only into batches of at least 64 runs); keep `inFlight` below `poolSize`. */
  appendBatches?: Partial<GroupAppendLimits>;
}

const INT8_OID = 20;
/** BIGINT columns hold epoch milliseconds, well inside a double's exact range. */
const TYPES = {
  getTypeParser: (oid: number, format?: string) => (oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format as 'text')),
} as pg.CustomTypesConfig;

const GET_RUN = `SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`;
const GET_HEAD_SEQ = 'SELECT head_seq FROM runs WHERE id = $1';
/**
 * The runs changed after a cursor: those of its change span and later (runs keeps no index
 * on updated_at itself, which would stop its updates being HOT: see migration 3), in order.
 */
const UPDATED_AFTER = `SELECT ${RUN_COLUMNS}, updated_at, id FROM runs WHERE change_span >= $1::bigint / ${CHANGE_SPAN_MS} AND (updated_at, id) > ($1, $2) ORDER BY updated_at, id LIMIT $3`;

export class PostgresRunStore implements RunStore {
  /** The URL with its password masked: the only form of it in messages. */
  readonly database: string;
  readonly #sql: PgStatements;
  readonly #changes: PgChangeListener;
  readonly #clock: Clock;
  /** Whether leases follow the injected clock (tests) rather than the database's (see pg-leases.ts). */
  readonly #leaseOnClock: boolean;
  readonly #databaseClock: DatabaseClock | undefined;
  readonly #newId: IdGenerator;
  readonly #appends: PgGroupAppend;
  readonly #newRuns: PgNewRuns;

  private constructor(
    sql: PgStatements,
    changes: PgChangeListener,
    database: string,
    clock: Clock | DatabaseClock,
    newId: IdGenerator,
    appendBatches: GroupAppendLimits,
  ) {
    this.#sql = sql;
    this.#changes = changes;
    this.database = database;
    this.#databaseClock = clock instanceof DatabaseClock ? clock : undefined;
    this.#leaseOnClock = this.#databaseClock === undefined;
    this.#clock = clock instanceof DatabaseClock ? clock.now : clock;
    this.#newId = newId;
    this.#appends = new PgGroupAppend(sql, this.#clock, database, appendBatches);
    this.#newRuns = new PgNewRuns(sql, this.#appends, this.#clock, newId);
  }

  /** Connects, migrates (once across all hosts) and starts listening for changes. */
  static async open(options: PostgresRunStoreOptions): Promise<PostgresRunStore> {
    const database = maskDatabaseUrl(options.url);
    const logger = options.logger ?? silentLogger;
    const clock = options.clock ?? Date.now;
    // A server whose host vanished answers no SYN: a connect fails after 10 s, not the kernel's two minutes.
    const config: pg.PoolConfig = {
      connectionString: options.url,
      types: TYPES,
      max: options.poolSize ?? 10,
      application_name: 'weft',
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
    };
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
      // Without an injected clock (tests), everything this store stamps is on the database's clock.
      const stamps = options.clock ?? (await DatabaseClock.open(pool));
      const changes = await PgChangeListener.open(
        { connectionString: options.url, application_name: 'weft-notices' },
        logger,
        defaultNewId(),
        options.safetyTickMs,
      );
      return new PostgresRunStore(new PgStatements(pool, database, changes), changes, database, stamps, options.newId ?? defaultNewId, {
        ...DEFAULT_GROUP_APPEND_LIMITS,
        ...options.appendBatches,
      });
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw toPgStoreError(error, database, 'open the run store');
    }
  }

  /** Schedules and webhook triggers, in this store's database. */
  schedules(): ScheduleStore {
    return new PgScheduleStore(this.#sql);
  }

  /** Model-limit slots and windows, in this store's database (on its clock, like leases). */
  modelCalls(): ModelCallStore {
    return new PgModelCallStore(this.#sql, this.#leaseOnClock ? this.#clock : undefined);
  }

  async createRun(params: CreateRunParams): Promise<RunRecord> {
    return this.#newRuns.insert({ run: params });
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

  async listRunsUpdatedAfter(after: UpdatedCursor, limit?: number): Promise<UpdatedRunsPage> {
    const pageSize = normalizeUpdatedQuery(after, limit);
    const rows = await this.#sql.rows<RunRow & { updated_at: string | number; id: string }>('list changed runs', UPDATED_AFTER, [
      after.updatedAt,
      after.id,
      pageSize + 1,
    ]);
    return updatedPage(rows, pageSize, recordOf, (row) => ({ updatedAt: Number(row.updated_at), id: row.id }));
  }

  async appendEvents(id: string, events: NewRunEvent[], options?: AppendOptions): Promise<RunEvent[]> {
    runId(id);
    return this.#appends.append(id, events, false, options?.leaseOwner);
  }

  async listEvents(id: string, options?: ListEventsOptions): Promise<RunEvent[]> {
    runId(id);
    const query = normalizeEventQuery(options);
    const types = query.types === undefined ? '' : 'AND type = ANY($5::text[])';
    const sql = `SELECT seq, at, type, stage_id, payload FROM events WHERE run_id = $1 AND seq > $2::bigint AND seq < $3::bigint ${types} ORDER BY seq ${query.direction === 'asc' ? 'ASC' : 'DESC'} LIMIT $4`;
    const rows = await this.#sql.rows<EventRow>('list events', sql, [
      id,
      query.afterSeq,
      query.beforeSeq,
      query.limit,
      ...(query.types === undefined ? [] : [query.types]),
    ]);
    if (rows.length === 0) await requireHead(this.#sql, id);
    return rows.map((row) => eventFromRow(id, row));
  }

  async setArchived(id: string, archived: boolean): Promise<RunRecord> {
    runId(id);
    if (typeof archived !== 'boolean') throw new WeftError('RUN_INVALID_PARAMS', 'archived must be true or false.');
    const run = await this.#requireRun(id);
    if (run.archived === archived) return run;
    await this.#appends.append(id, [{ type: archived ? RUN_EVENT.runArchived : RUN_EVENT.runUnarchived, payload: {} }], true);
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
    if ((run.parentId ?? null) !== parentId)
      await this.#appends.append(id, [{ type: RUN_EVENT.runParentChanged, payload: { parentId } }], true);
    return this.#requireRun(id);
  }

  async listQuestions(id: string, options: { pending?: boolean } = {}): Promise<QuestionRecord[]> {
    runId(id);
    const pending = options.pending === true ? "AND status = 'pending'" : '';
    const rows = await this.#sql.rows<{ record: string }>(
      'list questions',
      `SELECT record FROM questions WHERE run_id = $1 ${pending} ORDER BY asked_at, id`,
      [id],
    );
    if (rows.length === 0) await requireHead(this.#sql, id);
    return rows.map(questionFromRow);
  }

  async getQuestion(id: string): Promise<QuestionRecord | undefined> {
    assertUlid(id, 'question id');
    const [row] = await this.#sql.rows<{ record: string }>('read a question', 'SELECT record FROM questions WHERE id = $1', [id]);
    return row === undefined ? undefined : questionFromRow(row);
  }

  /** `now` counts only with an injected clock: otherwise leases run on the database's clock, the one all hosts share. */
  async claimRun(workerId: string, leaseMs: number, now: number = this.#clock(), filter?: ClaimFilter): Promise<RunRecord | undefined> {
    return claimRun(this.#sql, workerId, leaseMs, this.#leaseOnClock ? now : null, filter);
  }

  async concurrencyHeld(keys: readonly string[], now: number = this.#clock()): Promise<Record<string, number>> {
    return concurrencyHeld(this.#sql, keys, this.#leaseOnClock ? now : null);
  }

  async renewLease(id: string, workerId: string, leaseMs: number): Promise<boolean> {
    return renewLease(this.#sql, id, workerId, leaseMs, this.#leaseOnClock ? this.#clock() : null);
  }

  async releaseLease(id: string, workerId: string): Promise<boolean> {
    return releaseLease(this.#sql, id, workerId);
  }

  async putMcpServer(name: string, config: JsonObject): Promise<McpServerEntry> {
    const entry = {
      name: mcpServerName(name),
      config: normalizeJsonObject(config, `config of MCP server '${name}'`),
      updatedAt: this.#clock(),
    };
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
    return (
      await this.#sql.rows<McpServerRow>('list MCP servers', 'SELECT name, config, updated_at FROM mcp_servers ORDER BY name', [])
    ).map(mcpServerFromRow);
  }

  async deleteRun(id: string): Promise<void> {
    runId(id);
    const run = await this.#requireRun(id);
    if (!isTerminal(run.status)) {
      throw new WeftError(
        'RUN_NOT_TERMINAL',
        `Run ${id} is ${run.status}; only a succeeded, failed or cancelled run can be deleted. Cancel it first.`,
        { data: { runId: id, status: run.status } },
      );
    }
    for (const child of await this.#sql.rows<{ id: string }>('delete a run', 'SELECT id FROM runs WHERE parent_id = $1', [id])) {
      await this.#appends.append(child.id, [{ type: RUN_EVENT.runParentChanged, payload: { parentId: null } }], true);
    }
    // Events have no foreign key (schema 3): they go in a second statement, which sees every append that committed
    // before the run's row went; none can follow, as an append writes only to a run whose row it updates.
    await this.#sql.transaction('delete a run', async (query) => {
      const deleted = (await query("DELETE FROM runs WHERE id = $1 AND status IN ('succeeded', 'failed', 'cancelled')", [id])) as {
        rowCount: number | null;
      };
      if (deleted.rowCount === 1) await query('DELETE FROM events WHERE run_id = $1', [id]);
    });
    this.#sql.notifyChanges([{ id }]);
    this.#appends.forget(id);
  }

  /** Bulk load (benchmarks, imports from another store): `batchSize` runs per transaction. */
  async importRuns(items: Iterable<ImportedRun>, batchSize = 500): Promise<number> {
    return this.#newRuns.importRuns(items, batchSize);
  }

  /** Keeps a full tool output in the database, so a runner on any host can read it; returns its id. */
  async saveArtifact(runId: string | undefined, label: string, content: string): Promise<string> {
    const id = this.#newId();
    await this.#sql.rows('save an artifact', 'INSERT INTO artifacts (id, run_id, label, created_at, content) VALUES ($1, $2, $3, $4, $5)', [
      id,
      runId ?? null,
      label,
      this.#clock(),
      content,
    ]);
    return id;
  }

  async readArtifact(id: string): Promise<{ label: string; runId?: string; content: string } | undefined> {
    assertUlid(id, 'artifact id');
    const [row] = await this.#sql.rows<{ label: string; run_id: string | null; content: string }>(
      'read an artifact',
      'SELECT label, run_id, content FROM artifacts WHERE id = $1',
      [id],
    );
    return row === undefined
      ? undefined
      : { label: row.label, ...(row.run_id === null ? {} : { runId: row.run_id }), content: row.content };
  }

  watchChanges(listener: StoreChangeListener): () => void {
    return this.#changes.add(listener);
  }

  /**
   * The time on the clock this store stamps with: the database's (this host's clock plus
   * the offset measured to it), or the injected one. Compare a lease's `expiresAt` or a
   * change time with this, not with this host's clock.
   */
  now(): number {
    return this.#clock();
  }

  async close(): Promise<void> {
    this.#databaseClock?.stop();
    // Appends made before close are written (or refused), not cut off with the pool.
    await this.#appends.idle();
    await this.#changes.close();
    await this.#sql.close();
  }

  /**
   * Copies a run from another store as it is: its whole log, `run-created` first, replayed
   * through the planner with the store-written types allowed (`weft store migrate`).
   */
  async copyRun(id: string, events: readonly NewRunEvent[]): Promise<void> {
    await this.#newRuns.insertPlanned(runId(id), events);
  }

  async #requireRun(id: string): Promise<RunRecord> {
    const run = await this.getRun(id);
    if (run === undefined) throw runNotFound(id);
    return run;
  }
}
