/**
 * The embedded `RunStore`: one SQLite file in the storage dir, shared safely by several
 * processes. Writes run in `BEGIN IMMEDIATE` transactions (a 5 s busy timeout plus a
 * bounded retry), and the writes of one event-loop turn share a commit (group commit).
 * Each write applies the shared planner and keeps the projected state in the `runs` row
 * (the immutable spec sits beside it), so a read is one indexed lookup plus the newest
 * event; the writes themselves are in sqlite-run-writes.ts, statements, retries and the group
 * commit in sqlite-access.ts. SQLite errors leave only as `STORE_FAILED`.
 */
import type { ScheduleStore } from '../schedule-store.js';
import { SqliteScheduleStore } from './sqlite-schedule-store.js';
import type { ModelCallStore } from '../model-call-store.js';
import { SqliteModelCallStore } from './sqlite-model-call-store.js';
import { WeftError } from '../../../core/errors.js';
import { assertUlid, newId as defaultNewId, type IdGenerator } from '../../../core/ids.js';
import { silentLogger, type Logger } from '../../../core/logger.js';
import { normalizeJsonObject, type JsonObject } from '../../model/json.js';
import type { QuestionRecord } from '../../model/question.js';
import { RUN_EVENT } from '../../model/event-types.js';
import type { NewRunEvent, RunEvent } from '../../model/run-event.js';
import type { RunRecord } from '../../model/run-record.js';
import { isTerminal, type RunStatus } from '../../model/run-status.js';
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
  StoreChangeListener,
  UpdatedCursor,
  UpdatedRunsPage,
} from '../run-store.js';
import {
  checkFence,
  checkLease,
  concurrencyKeys,
  checkParentLink,
  claimFingerprint,
  encodeCursor,
  mcpServerName,
  normalizeEventQuery,
  normalizeFilter,
  normalizeUpdatedQuery,
  runId,
  runNotFound,
  updatedPage,
} from '../store-input.js';
import { claimParams, claimQueries, HELD_QUERY } from './claim-queries.js';
import { openDatabase } from './open-database.js';
import {
  EVENT_HEAD_COLUMNS,
  GET_HEAD,
  eventFromRow,
  mcpServerFromRow,
  questionFromRow,
  runFromRow,
  type EventHead,
  type EventRow,
  type McpServerRow,
  type RunRow,
} from './run-rows.js';
import { ESTIMATE_CAP, planSearch, searchSql } from './search-plan.js';
import { retryWhileLocked } from './lock-retry.js';
import { RETRY_DELAY_MS, SqliteAccess, WRITE_ATTEMPTS } from './sqlite-access.js';
import { GET_STATE, SqliteRunWrites } from './sqlite-run-writes.js';

export interface SqliteRunStoreOptions extends RunStoreOptions {
  /** The storage dir; the database is `<storageDir>/weft.db`. */
  storageDir: string;
  /** How long one attempt waits for another process's write lock (default 5000 ms). */
  busyTimeoutMs?: number;
  /** Told about lock retries. */
  logger?: Logger;
}

/** One run for {@link SqliteRunStore.importRuns}: its creation and the events that follow. */
export interface ImportedRun {
  run: CreateRunParams;
  createdAt?: number;
  events?: NewRunEvent[];
}

const GET_RUN = `SELECT s.spec AS spec, r.state AS state, r.lease_owner AS lease_owner, r.lease_expires_at AS lease_expires_at, ${EVENT_HEAD_COLUMNS} FROM runs r JOIN run_specs s ON s.id = r.id WHERE r.id = ?`;
/** Runs by the stored `updated_at`, which skips count-and-time-only events (see `stateAtHead`): the position pages on the column, not on the record's time. */
const UPDATED_AFTER = `SELECT s.spec AS spec, r.state AS state, r.lease_owner AS lease_owner, r.lease_expires_at AS lease_expires_at, ${EVENT_HEAD_COLUMNS}, r.updated_at AS updated_at, r.id AS id FROM runs r INDEXED BY runs_by_updated CROSS JOIN run_specs s ON s.id = r.id WHERE (r.updated_at, r.id) > (?, ?) ORDER BY r.updated_at, r.id LIMIT ?`;

export class SqliteRunStore implements RunStore {
  readonly file: string;
  private readonly runWrites: SqliteRunWrites;

  private constructor(
    private readonly db: SqliteAccess,
    private readonly clock: Clock,
    newId: IdGenerator,
  ) {
    this.file = db.file;
    this.runWrites = new SqliteRunWrites((sql) => db.stmt(sql), db.states, clock, newId, db.written);
  }

  /** @example const store = await SqliteRunStore.open({ storageDir: '/home/me/.weft' }); */
  static async open(options: SqliteRunStoreOptions): Promise<SqliteRunStore> {
    const clock = options.clock ?? Date.now;
    return retryWhileLocked(
      {
        attempts: WRITE_ATTEMPTS,
        delayMs: RETRY_DELAY_MS,
        locked: (error) => WeftError.is(error, 'STORE_FAILED') && error.data.reason === 'locked',
      },
      () =>
        new SqliteRunStore(
          new SqliteAccess(openDatabase(options.storageDir, clock(), options.busyTimeoutMs), options.logger ?? silentLogger),
          clock,
          options.newId ?? defaultNewId,
        ),
    );
  }

  /** Schedules and webhook triggers, in this store's database. */
  schedules(): ScheduleStore {
    return new SqliteScheduleStore(this.db.connection);
  }

  /** Model-limit slots and windows, in this store's database. */
  modelCalls(): ModelCallStore {
    return new SqliteModelCallStore(this.db.connection, this.clock);
  }

  async createRun(params: CreateRunParams): Promise<RunRecord> {
    return this.db.execute('create a run', 'write', () =>
      runFromRow({ ...this.runWrites.importRun({ run: params }), lease_owner: null, lease_expires_at: 0, head_seq: null, head_at: null }),
    );
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    runId(id);
    return this.db.execute('read a run', 'read', () => {
      const row = this.db.stmt<RunRow>(GET_RUN).get(id);
      return row === undefined ? undefined : runFromRow(row);
    });
  }

  async headSeq(id: string): Promise<number | undefined> {
    runId(id);
    // Every run has at least its run-created event, so no row means no run.
    return this.db.execute('read a run', 'read', () => this.db.stmt<EventHead>(GET_HEAD).get(id)?.head_seq ?? undefined);
  }

  async searchRuns(filter?: RunFilter): Promise<RunPage> {
    const query = normalizeFilter(filter);
    const rows = await this.db.execute('search runs', 'snapshot', () => {
      const plan = planSearch(query, (estimate) => this.db.stmt<{ n: number }>(estimate.sql).get(...estimate.params)?.n ?? ESTIMATE_CAP);
      const { sql, params } = searchSql(plan.filter, plan.driver);
      return this.db.stmt<RunRow>(sql).all(...params);
    });
    const runs = rows.slice(0, query.limit).map(runFromRow);
    const last = runs[runs.length - 1];
    return rows.length > query.limit && last ? { runs, nextCursor: encodeCursor(last) } : { runs };
  }

  async listRunsUpdatedAfter(after: UpdatedCursor, limit?: number): Promise<UpdatedRunsPage> {
    const pageSize = normalizeUpdatedQuery(after, limit);
    const rows = await this.db.execute('list changed runs', 'read', () =>
      this.db.stmt<RunRow & { updated_at: number; id: string }>(UPDATED_AFTER).all(after.updatedAt, after.id, pageSize + 1),
    );
    return updatedPage(rows, pageSize, runFromRow, (row) => ({ updatedAt: row.updated_at, id: row.id }));
  }

  async appendEvents(id: string, events: NewRunEvent[], options?: AppendOptions): Promise<RunEvent[]> {
    runId(id);
    return this.db.execute('append events', 'write', () => {
      const lease =
        options?.leaseOwner === undefined
          ? undefined
          : this.db.stmt<{ lease_owner: string | null; status: RunStatus }>('SELECT lease_owner, status FROM runs WHERE id = ?').get(id);
      if (lease !== undefined) checkFence(id, lease.lease_owner, lease.status, options?.leaseOwner);
      return this.runWrites.append(id, events, false);
    });
  }

  async listEvents(id: string, options?: ListEventsOptions): Promise<RunEvent[]> {
    runId(id);
    const query = normalizeEventQuery(options);
    const types = query.types === undefined ? '' : 'AND type IN (SELECT value FROM json_each(?))';
    const sql = `SELECT seq, at, type, stage_id, payload FROM events WHERE run_id = ? AND seq > ? AND seq < ? ${types} ORDER BY seq ${query.direction === 'asc' ? 'ASC' : 'DESC'} LIMIT ?`;
    const params = [id, query.afterSeq, query.beforeSeq, ...(query.types === undefined ? [] : [JSON.stringify(query.types)]), query.limit];
    return this.db.execute('list events', 'snapshot', () => {
      this.requireExists(id);
      return this.db
        .stmt<EventRow>(sql)
        .all(...params)
        .map((row) => eventFromRow(id, row));
    });
  }

  async setArchived(id: string, archived: boolean): Promise<RunRecord> {
    runId(id);
    if (typeof archived !== 'boolean') throw new WeftError('RUN_INVALID_PARAMS', 'archived must be true or false.');
    return this.db.execute('archive a run', 'write', () => {
      if (this.requireRun(id).archived !== archived)
        this.runWrites.append(id, [{ type: archived ? RUN_EVENT.runArchived : RUN_EVENT.runUnarchived, payload: {} }], true);
      return this.requireRun(id);
    });
  }

  async setParent(id: string, parentId: string | null): Promise<RunRecord> {
    runId(id);
    if (parentId !== null) runId(parentId);
    return this.db.execute('link a run to its parent', 'write', () => {
      const run = this.requireRun(id);
      if (parentId !== null) {
        const parentOf = this.db.stmt<{ parent_id: string | null }>('SELECT parent_id FROM runs WHERE id = ?');
        checkParentLink(id, parentId, (ancestor) => {
          const row = parentOf.get(ancestor);
          return row === undefined ? undefined : row.parent_id;
        });
      }
      if ((run.parentId ?? null) !== parentId)
        this.runWrites.append(id, [{ type: RUN_EVENT.runParentChanged, payload: { parentId } }], true);
      return this.requireRun(id);
    });
  }

  async listQuestions(id: string, options: { pending?: boolean } = {}): Promise<QuestionRecord[]> {
    runId(id);
    const pending = options.pending === true ? "AND status = 'pending'" : '';
    return this.db.execute('list questions', 'snapshot', () => {
      this.requireExists(id);
      return this.db
        .stmt<{ record: string }>(`SELECT record FROM questions WHERE run_id = ? ${pending} ORDER BY asked_at, id`)
        .all(id)
        .map(questionFromRow);
    });
  }

  async getQuestion(id: string): Promise<QuestionRecord | undefined> {
    assertUlid(id, 'question id');
    return this.db.execute('read a question', 'read', () => this.runWrites.lookupQuestion(id));
  }

  async claimRun(workerId: string, leaseMs: number, now: number = this.clock(), filter?: ClaimFilter): Promise<RunRecord | undefined> {
    checkLease(workerId, leaseMs);
    const fingerprint = claimFingerprint(filter);
    const [orphan, queued] = claimQueries(fingerprint !== undefined);
    const params = claimParams(now, fingerprint);
    const pick = () => this.db.stmt<{ id: string }>(orphan).get(...params)?.id ?? this.db.stmt<{ id: string }>(queued).get(...params)?.id;
    // Runners ask on every change notice; most find nothing, and need not take the write lock to learn it.
    if ((await this.db.execute('claim a run', 'read', pick)) === undefined) return undefined;
    return this.db.execute('claim a run', 'write', () => {
      const id = pick();
      if (id === undefined) return undefined;
      this.db.stmt('UPDATE runs SET lease_owner = ?, lease_expires_at = ? WHERE id = ?').run(workerId, now + leaseMs, id);
      const run = this.requireRun(id);
      this.db.written.run({ id, headSeq: run.counts.events, status: run.status });
      return run;
    });
  }

  async concurrencyHeld(keys: readonly string[], now: number = this.clock()): Promise<Record<string, number>> {
    const wanted = concurrencyKeys(keys);
    if (wanted.length === 0) return {};
    return this.db.execute('count concurrency key holders', 'snapshot', () =>
      Object.fromEntries(wanted.map((key) => [key, this.db.stmt<{ n: number }>(`SELECT (${HELD_QUERY}) AS n`).get(now, key)?.n ?? 0])),
    );
  }

  async renewLease(id: string, workerId: string, leaseMs: number): Promise<boolean> {
    runId(id);
    checkLease(workerId, leaseMs);
    return this.db.execute('renew a lease', 'write', () => {
      this.requireExists(id);
      this.db.written.run({ id });
      return (
        this.db.stmt('UPDATE runs SET lease_expires_at = ? WHERE id = ? AND lease_owner = ?').run(this.clock() + leaseMs, id, workerId)
          .changes === 1
      );
    });
  }

  async releaseLease(id: string, workerId: string): Promise<boolean> {
    runId(id);
    checkLease(workerId, 1);
    return this.db.execute('release a lease', 'write', () => {
      this.requireExists(id);
      this.db.written.run({ id }, true);
      return (
        this.db.stmt('UPDATE runs SET lease_owner = NULL, lease_expires_at = 0 WHERE id = ? AND lease_owner = ?').run(id, workerId)
          .changes === 1
      );
    });
  }

  async putMcpServer(name: string, config: JsonObject): Promise<McpServerEntry> {
    const entry = {
      name: mcpServerName(name),
      config: normalizeJsonObject(config, `config of MCP server '${name}'`),
      updatedAt: this.clock(),
    };
    await this.db.execute('save an MCP server', 'write', () => {
      this.db.written.unknown();
      this.db
        .stmt(
          'INSERT INTO mcp_servers (name, config, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at',
        )
        .run(entry.name, entry.config.text, entry.updatedAt);
    });
    return { name: entry.name, config: entry.config.value, updatedAt: entry.updatedAt };
  }

  async deleteMcpServer(name: string): Promise<boolean> {
    mcpServerName(name);
    return this.db.execute('delete an MCP server', 'write', () => {
      this.db.written.unknown();
      return this.db.stmt('DELETE FROM mcp_servers WHERE name = ?').run(name).changes === 1;
    });
  }

  async listMcpServers(): Promise<McpServerEntry[]> {
    return this.db.execute('list MCP servers', 'read', () =>
      this.db.stmt<McpServerRow>('SELECT name, config, updated_at FROM mcp_servers ORDER BY name').all().map(mcpServerFromRow),
    );
  }

  async deleteRun(id: string): Promise<void> {
    runId(id);
    await this.db.execute('delete a run', 'write', () => {
      const run = this.requireRun(id);
      if (!isTerminal(run.status)) {
        throw new WeftError(
          'RUN_NOT_TERMINAL',
          `Run ${id} is ${run.status}; only a succeeded, failed or cancelled run can be deleted. Cancel it first.`,
          { data: { runId: id, status: run.status } },
        );
      }
      for (const child of this.db.stmt<{ id: string }>('SELECT id FROM runs WHERE parent_id = ?').all(id)) {
        this.runWrites.append(child.id, [{ type: RUN_EVENT.runParentChanged, payload: { parentId: null } }], true);
      }
      this.db.stmt('DELETE FROM runs WHERE id = ?').run(id);
      this.db.states.delete(id);
      this.db.written.run({ id });
    });
  }

  /**
   * Bulk load (benchmarks, imports from another store): creates runs and appends their
   * events through the same planner, `batchSize` runs per transaction.
   */
  async importRuns(items: Iterable<ImportedRun>, batchSize = 1000): Promise<number> {
    let batch: ImportedRun[] = [];
    let count = 0;
    const flush = async () => {
      await this.db.execute('import runs', 'write', () => batch.forEach((item) => this.runWrites.importRun(item)));
      count += batch.length;
      batch = [];
      await new Promise((resolve) => setImmediate(resolve));
    };
    for (const item of items) {
      batch.push(item);
      if (batch.length >= batchSize) await flush();
    }
    if (batch.length > 0) await flush();
    return count;
  }

  watchChanges(listener: StoreChangeListener): () => void {
    return this.db.watch(listener);
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  private requireExists(id: string): void {
    if (this.db.stmt(GET_STATE).get(id) === undefined) throw runNotFound(id);
  }

  private requireRun(id: string): RunRecord {
    const row = this.db.stmt<RunRow>(GET_RUN).get(id);
    if (row === undefined) throw runNotFound(id);
    return runFromRow(row);
  }
}
