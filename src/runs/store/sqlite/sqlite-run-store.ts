/**
 * The embedded `RunStore`: one SQLite file in the storage dir, shared safely by several
 * processes. Writes run in `BEGIN IMMEDIATE` transactions (a 5 s busy timeout plus a
 * bounded retry), and the writes of one event-loop turn share a commit (group commit).
 * Each write applies the shared planner and keeps the projected state in the `runs` row
 * (the immutable spec sits beside it), so a read is one indexed lookup plus the newest
 * event; the writes themselves are in sqlite-run-writes.ts. SQLite errors leave only as
 * `STORE_FAILED`.
 */
import type Database from 'better-sqlite3';
import { WeftError } from '../../../core/errors.js';
import { assertUlid, newId as defaultNewId, type IdGenerator } from '../../../core/ids.js';
import { silentLogger, type Logger } from '../../../core/logger.js';
import { normalizeJsonObject, type JsonObject } from '../../model/json.js';
import type { QuestionRecord } from '../../model/question.js';
import { RUN_EVENT } from '../../model/event-types.js';
import type { NewRunEvent, RunEvent } from '../../model/run-event.js';
import type { RunRecord } from '../../model/run-record.js';
import { isTerminal, type RunStatus } from '../../model/run-status.js';
import type { AppendOptions, ClaimFilter, Clock, CreateRunParams, ListEventsOptions, McpServerEntry, RunFilter, RunPage, RunStore, RunStoreOptions, StoreChangeListener, UpdatedCursor, UpdatedRunsPage } from '../run-store.js';
import { checkFence, checkLease, concurrencyKeys, checkParentLink, claimFingerprint, encodeCursor, mcpServerName, normalizeEventQuery, normalizeFilter, normalizeUpdatedQuery, runId, runNotFound, updatedPage, type NormalizedFilter } from '../store-input.js';
import { claimParams, claimQueries, HELD_QUERY } from './claim-queries.js';
import { SqliteChangeWatch } from './change-watch.js';
import { ChangeCollector } from '../store-change.js';
import { GroupCommit } from './group-commit.js';
import { openDatabase } from './open-database.js';
import { EVENT_HEAD_COLUMNS, GET_HEAD, eventFromRow, mcpServerFromRow, questionFromRow, runFromRow, type EventHead, type EventRow, type McpServerRow, type RunRow } from './run-rows.js';
import { driverCandidates, ESTIMATE_CAP, estimateSql, searchSql, type SearchDriver } from './search-plan.js';
import { retryWhileLocked } from './lock-retry.js';
import { storeFailed, toStoreError } from './sqlite-errors.js';
import { RunStateCache } from './state-cache.js';
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

/** Attempts of a write transaction that finds the database locked (each waits for the busy timeout). */
export const WRITE_ATTEMPTS = 3;
const RETRY_DELAY_MS = 25;
const GET_RUN = `SELECT s.spec AS spec, r.state AS state, r.lease_owner AS lease_owner, r.lease_expires_at AS lease_expires_at, ${EVENT_HEAD_COLUMNS} FROM runs r JOIN run_specs s ON s.id = r.id WHERE r.id = ?`;
/** Runs by the stored `updated_at`, which skips count-and-time-only events (see `stateAtHead`): the position pages on the column, not on the record's time. */
const UPDATED_AFTER = `SELECT s.spec AS spec, r.state AS state, r.lease_owner AS lease_owner, r.lease_expires_at AS lease_expires_at, ${EVENT_HEAD_COLUMNS}, r.updated_at AS updated_at, r.id AS id FROM runs r INDEXED BY runs_by_updated CROSS JOIN run_specs s ON s.id = r.id WHERE (r.updated_at, r.id) > (?, ?) ORDER BY r.updated_at, r.id LIMIT ?`;
/** A run whose runner died (its lease ran out), oldest lease first. */

export class SqliteRunStore implements RunStore {
  readonly file: string;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly transaction: Database.Transaction<(body: () => unknown) => unknown>;
  private readonly writes: GroupCommit;
  private readonly changes: SqliteChangeWatch;
  private readonly states = new RunStateCache();
  private readonly runWrites: SqliteRunWrites;
  /** What the write transactions of this turn wrote, told to the watchers once they commit. */
  private readonly written = new ChangeCollector();

  private constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly newId: IdGenerator,
    logger: Logger,
  ) {
    this.file = db.name;
    this.transaction = db.transaction((body: () => unknown) => body());
    const dataVersion = db.prepare<{ data_version: number }>('PRAGMA data_version');
    this.writes = new GroupCommit(db, this.file, {
      attempts: WRITE_ATTEMPTS,
      retryDelayMs: RETRY_DELAY_MS,
      logger,
      onBegin: () => this.states.checkVersion(dataVersion.get()?.data_version ?? Number.NaN),
      onRollback: () => this.states.clear(),
    });
    this.changes = new SqliteChangeWatch(this.file, { ownVersion: () => dataVersion.get()?.data_version ?? Number.NaN });
    this.runWrites = new SqliteRunWrites((sql) => this.stmt(sql), this.states, clock, newId, this.written);
  }

  /** @example const store = await SqliteRunStore.open({ storageDir: '/home/me/.weft' }); */
  static async open(options: SqliteRunStoreOptions): Promise<SqliteRunStore> {
    const clock = options.clock ?? Date.now;
    return retryWhileLocked(
      { attempts: WRITE_ATTEMPTS, delayMs: RETRY_DELAY_MS, locked: (error) => WeftError.is(error, 'STORE_FAILED') && error.data.reason === 'locked' },
      () => new SqliteRunStore(openDatabase(options.storageDir, clock(), options.busyTimeoutMs), clock, options.newId ?? defaultNewId, options.logger ?? silentLogger),
    );
  }

  async createRun(params: CreateRunParams): Promise<RunRecord> {
    return this.execute('create a run', 'write', () => runFromRow({ ...this.runWrites.importRun({ run: params }), lease_owner: null, lease_expires_at: 0, head_seq: null, head_at: null }));
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    runId(id);
    return this.execute('read a run', 'read', () => {
      const row = this.stmt<RunRow>(GET_RUN).get(id);
      return row === undefined ? undefined : runFromRow(row);
    });
  }

  async headSeq(id: string): Promise<number | undefined> {
    runId(id);
    // Every run has at least its run-created event, so no row means no run.
    return this.execute('read a run', 'read', () => this.stmt<EventHead>(GET_HEAD).get(id)?.head_seq ?? undefined);
  }

  async searchRuns(filter?: RunFilter): Promise<RunPage> {
    const query = normalizeFilter(filter);
    const rows = await this.execute('search runs', 'snapshot', () => {
      const plan = this.planSearch(query);
      const { sql, params } = searchSql(plan.filter, plan.driver);
      return this.stmt<RunRow>(sql).all(...params);
    });
    const runs = rows.slice(0, query.limit).map(runFromRow);
    const last = runs[runs.length - 1];
    return rows.length > query.limit && last ? { runs, nextCursor: encodeCursor(last) } : { runs };
  }

  async listRunsUpdatedAfter(after: UpdatedCursor, limit?: number): Promise<UpdatedRunsPage> {
    const pageSize = normalizeUpdatedQuery(after, limit);
    const rows = await this.execute('list changed runs', 'read', () => this.stmt<RunRow & { updated_at: number; id: string }>(UPDATED_AFTER).all(after.updatedAt, after.id, pageSize + 1));
    return updatedPage(rows, pageSize, runFromRow, (row) => ({ updatedAt: row.updated_at, id: row.id }));
  }

  async appendEvents(id: string, events: NewRunEvent[], options?: AppendOptions): Promise<RunEvent[]> {
    runId(id);
    return this.execute('append events', 'write', () => {
      const lease = options?.leaseOwner === undefined ? undefined : this.stmt<{ lease_owner: string | null; status: RunStatus }>('SELECT lease_owner, status FROM runs WHERE id = ?').get(id);
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
    return this.execute('list events', 'snapshot', () => {
      this.requireExists(id);
      return this.stmt<EventRow>(sql).all(...params).map((row) => eventFromRow(id, row));
    });
  }

  async setArchived(id: string, archived: boolean): Promise<RunRecord> {
    runId(id);
    if (typeof archived !== 'boolean') throw new WeftError('RUN_INVALID_PARAMS', 'archived must be true or false.');
    return this.execute('archive a run', 'write', () => {
      if (this.requireRun(id).archived !== archived) this.runWrites.append(id, [{ type: archived ? RUN_EVENT.runArchived : RUN_EVENT.runUnarchived, payload: {} }], true);
      return this.requireRun(id);
    });
  }

  async setParent(id: string, parentId: string | null): Promise<RunRecord> {
    runId(id);
    if (parentId !== null) runId(parentId);
    return this.execute('link a run to its parent', 'write', () => {
      const run = this.requireRun(id);
      if (parentId !== null) {
        const parentOf = this.stmt<{ parent_id: string | null }>('SELECT parent_id FROM runs WHERE id = ?');
        checkParentLink(id, parentId, (ancestor) => {
          const row = parentOf.get(ancestor);
          return row === undefined ? undefined : row.parent_id;
        });
      }
      if ((run.parentId ?? null) !== parentId) this.runWrites.append(id, [{ type: RUN_EVENT.runParentChanged, payload: { parentId } }], true);
      return this.requireRun(id);
    });
  }

  async listQuestions(id: string, options: { pending?: boolean } = {}): Promise<QuestionRecord[]> {
    runId(id);
    const pending = options.pending === true ? "AND status = 'pending'" : '';
    return this.execute('list questions', 'snapshot', () => {
      this.requireExists(id);
      return this.stmt<{ record: string }>(`SELECT record FROM questions WHERE run_id = ? ${pending} ORDER BY asked_at, id`).all(id).map(questionFromRow);
    });
  }

  async getQuestion(id: string): Promise<QuestionRecord | undefined> {
    assertUlid(id, 'question id');
    return this.execute('read a question', 'read', () => this.runWrites.lookupQuestion(id));
  }

  async claimRun(workerId: string, leaseMs: number, now: number = this.clock(), filter?: ClaimFilter): Promise<RunRecord | undefined> {
    checkLease(workerId, leaseMs);
    const fingerprint = claimFingerprint(filter);
    const [orphan, queued] = claimQueries(fingerprint !== undefined);
    const params = claimParams(now, fingerprint);
    const pick = () => this.stmt<{ id: string }>(orphan).get(...params)?.id ?? this.stmt<{ id: string }>(queued).get(...params)?.id;
    // Runners ask on every change notice; most find nothing, and need not take the write lock to learn it.
    if ((await this.execute('claim a run', 'read', pick)) === undefined) return undefined;
    return this.execute('claim a run', 'write', () => {
      const id = pick();
      if (id === undefined) return undefined;
      this.stmt('UPDATE runs SET lease_owner = ?, lease_expires_at = ? WHERE id = ?').run(workerId, now + leaseMs, id);
      const run = this.requireRun(id);
      this.written.run({ id, headSeq: run.counts.events, status: run.status });
      return run;
    });
  }

  async concurrencyHeld(keys: readonly string[], now: number = this.clock()): Promise<Record<string, number>> {
    const wanted = concurrencyKeys(keys);
    if (wanted.length === 0) return {};
    return this.execute('count concurrency key holders', 'snapshot', () => Object.fromEntries(wanted.map((key) => [key, this.stmt<{ n: number }>(`SELECT (${HELD_QUERY}) AS n`).get(now, key)?.n ?? 0])));
  }

  async renewLease(id: string, workerId: string, leaseMs: number): Promise<boolean> {
    runId(id);
    checkLease(workerId, leaseMs);
    return this.execute('renew a lease', 'write', () => {
      this.requireExists(id);
      this.written.run({ id });
      return this.stmt('UPDATE runs SET lease_expires_at = ? WHERE id = ? AND lease_owner = ?').run(this.clock() + leaseMs, id, workerId).changes === 1;
    });
  }

  async releaseLease(id: string, workerId: string): Promise<boolean> {
    runId(id);
    checkLease(workerId, 1);
    return this.execute('release a lease', 'write', () => {
      this.requireExists(id);
      this.written.run({ id }, true);
      return this.stmt('UPDATE runs SET lease_owner = NULL, lease_expires_at = 0 WHERE id = ? AND lease_owner = ?').run(id, workerId).changes === 1;
    });
  }

  async putMcpServer(name: string, config: JsonObject): Promise<McpServerEntry> {
    const entry = { name: mcpServerName(name), config: normalizeJsonObject(config, `config of MCP server '${name}'`), updatedAt: this.clock() };
    await this.execute('save an MCP server', 'write', () => {
      this.written.unknown();
      this.stmt('INSERT INTO mcp_servers (name, config, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at').run(entry.name, entry.config.text, entry.updatedAt);
    });
    return { name: entry.name, config: entry.config.value, updatedAt: entry.updatedAt };
  }

  async deleteMcpServer(name: string): Promise<boolean> {
    mcpServerName(name);
    return this.execute('delete an MCP server', 'write', () => {
      this.written.unknown();
      return this.stmt('DELETE FROM mcp_servers WHERE name = ?').run(name).changes === 1;
    });
  }

  async listMcpServers(): Promise<McpServerEntry[]> {
    return this.execute('list MCP servers', 'read', () => this.stmt<McpServerRow>('SELECT name, config, updated_at FROM mcp_servers ORDER BY name').all().map(mcpServerFromRow));
  }

  async deleteRun(id: string): Promise<void> {
    runId(id);
    await this.execute('delete a run', 'write', () => {
      const run = this.requireRun(id);
      if (!isTerminal(run.status)) {
        throw new WeftError('RUN_NOT_TERMINAL', `Run ${id} is ${run.status}; only a succeeded, failed or cancelled run can be deleted. Cancel it first.`, { data: { runId: id, status: run.status } });
      }
      for (const child of this.stmt<{ id: string }>('SELECT id FROM runs WHERE parent_id = ?').all(id)) {
        this.runWrites.append(child.id, [{ type: RUN_EVENT.runParentChanged, payload: { parentId: null } }], true);
      }
      this.stmt('DELETE FROM runs WHERE id = ?').run(id);
      this.states.delete(id);
      this.written.run({ id });
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
      await this.execute('import runs', 'write', () => batch.forEach((item) => this.runWrites.importRun(item)));
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
    return this.changes.add(listener);
  }

  async close(): Promise<void> {
    this.changes.close();
    await this.writes.idle();
    if (!this.db.open) return;
    try {
      this.db.pragma('optimize');
    } finally {
      this.db.close();
    }
  }

  private async execute<T>(action: string, mode: 'read' | 'snapshot' | 'write', body: () => T): Promise<T> {
    if (mode === 'write') {
      try {
        return await this.writes.run(action, body);
      } finally {
        // A write that rolled back may have been noted too: a notice too many costs a read, never a miss.
        this.changes.own(this.written.take());
      }
    }
    try {
      return await retryWhileLocked({ attempts: WRITE_ATTEMPTS, delayMs: RETRY_DELAY_MS }, () => {
        if (!this.db.open) throw storeFailed(this.file, 'closed', 'The run store is closed; open a new one.');
        return mode === 'read' ? body() : (this.transaction.deferred(body) as T);
      });
    } catch (error) {
      throw toStoreError(error, this.file, action, WRITE_ATTEMPTS);
    }
  }

  private stmt<Row = unknown>(sql: string): Database.Statement<Row> {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement as Database.Statement<Row>;
  }

  /**
   * Picks the most selective candidate index by capped counts when there is a choice;
   * with several labels, the rarest one goes first (it is the one the label index walks).
   */
  private planSearch(query: NormalizedFilter): { filter: NormalizedFilter; driver: SearchDriver } {
    const count = (driver: SearchDriver, filter: NormalizedFilter) => {
      const { sql, params } = estimateSql(driver, filter);
      return this.stmt<{ n: number }>(sql).get(...params)?.n ?? ESTIMATE_CAP;
    };
    let filter = query;
    if (filter.labels.length > 1) {
      const counted = filter.labels.map((label) => ({ label, rows: count('label', { ...filter, labels: [label] }) }));
      filter = { ...filter, labels: counted.sort((a, b) => a.rows - b.rows).map((entry) => entry.label) };
    }
    const candidates = driverCandidates(filter);
    if (candidates.length === 1) return { filter, driver: candidates[0] as SearchDriver };
    let best: { driver: SearchDriver; rows: number } | undefined;
    for (const driver of candidates) {
      const rows = count(driver, filter);
      if (best === undefined || rows < best.rows) best = { driver, rows };
    }
    return { filter, driver: best?.driver ?? 'created' };
  }

  private requireExists(id: string): void {
    if (this.stmt(GET_STATE).get(id) === undefined) throw runNotFound(id);
  }

  private requireRun(id: string): RunRecord {
    const row = this.stmt<RunRow>(GET_RUN).get(id);
    if (row === undefined) throw runNotFound(id);
    return runFromRow(row);
  }
}
