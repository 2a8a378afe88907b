/**
 * How this process reads and writes the SQLite file: prepared statements kept per SQL
 * text, reads (plain or in one deferred snapshot) retried while another process holds the
 * lock, writes through the group commit, and the change notices of what this process's
 * writes touched. SQLite errors leave only as `STORE_FAILED`.
 */
import type Database from 'better-sqlite3';
import type { Logger } from '../../../core/logger.js';
import type { StoreChangeListener } from '../run-store.js';
import { ChangeCollector } from '../store-change.js';
import { SqliteChangeWatch } from './change-watch.js';
import { GroupCommit } from './group-commit.js';
import { retryWhileLocked } from './lock-retry.js';
import { storeFailed, toStoreError } from './sqlite-errors.js';
import { RunStateCache } from './state-cache.js';

/** Attempts of a write transaction that finds the database locked (each waits for the busy timeout). */
export const WRITE_ATTEMPTS = 3;
export const RETRY_DELAY_MS = 25;

/** `read`: one statement; `snapshot`: several in one deferred transaction; `write`: a group-committed write. */
export type AccessMode = 'read' | 'snapshot' | 'write';

export class SqliteAccess {
  readonly file: string;
  /** Run states as of the last write of this process, dropped when another process wrote. */
  readonly states = new RunStateCache();
  /** What the write transactions of this turn wrote, told to the watchers once they commit. */
  readonly written = new ChangeCollector();
  readonly #db: Database;
  readonly #statements = new Map<string, Database.Statement>();
  readonly #transaction: Database.Transaction<(body: () => unknown) => unknown>;
  readonly #writes: GroupCommit;
  readonly #changes: SqliteChangeWatch;

  constructor(db: Database, logger: Logger) {
    this.#db = db;
    this.file = db.name;
    this.#transaction = db.transaction((body: () => unknown) => body());
    const dataVersion = db.prepare<{ data_version: number }>('PRAGMA data_version');
    this.#writes = new GroupCommit(db, this.file, {
      attempts: WRITE_ATTEMPTS,
      retryDelayMs: RETRY_DELAY_MS,
      logger,
      onBegin: () => this.states.checkVersion(dataVersion.get()?.data_version ?? Number.NaN),
      onRollback: () => this.states.clear(),
    });
    this.#changes = new SqliteChangeWatch(this.file, { ownVersion: () => dataVersion.get()?.data_version ?? Number.NaN });
  }

  /** The connection itself, for stores beside the runs that keep their own transactions (schedules). */
  get connection(): Database {
    return this.#db;
  }

  async execute<T>(action: string, mode: AccessMode, body: () => T): Promise<T> {
    if (mode === 'write') {
      try {
        return await this.#writes.run(action, body);
      } finally {
        // A write that rolled back may have been noted too: a notice too many costs a read, never a miss.
        this.#changes.own(this.written.take());
      }
    }
    try {
      return await retryWhileLocked({ attempts: WRITE_ATTEMPTS, delayMs: RETRY_DELAY_MS }, () => {
        if (!this.#db.open) throw storeFailed(this.file, 'closed', 'The run store is closed; open a new one.');
        return mode === 'read' ? body() : (this.#transaction.deferred(body) as T);
      });
    } catch (error) {
      throw toStoreError(error, this.file, action, WRITE_ATTEMPTS);
    }
  }

  stmt<Row = unknown>(sql: string): Database.Statement<Row> {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement as Database.Statement<Row>;
  }

  watch(listener: StoreChangeListener): () => void {
    return this.#changes.add(listener);
  }

  async close(): Promise<void> {
    this.#changes.close();
    await this.#writes.idle();
    if (!this.#db.open) return;
    try {
      this.#db.pragma('optimize');
    } catch {
      // Statistics are a nicety: on a full disk, failing to write them must not turn a clean close into an internal error.
    } finally {
      this.#db.close();
    }
  }
}
