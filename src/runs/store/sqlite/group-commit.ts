/**
 * Group commit for the SQLite store: write requests that arrive while the event loop is
 * busy are run together in one `BEGIN IMMEDIATE` transaction, so many concurrent appends
 * cost one commit. A batch first runs plainly; if any request in it throws, the whole
 * transaction is rolled back and the batch runs again with each request inside its own
 * savepoint, so one request failing never undoes another. Savepoints cost about as much
 * as the insert itself, and requests almost never fail, so the common case skips them.
 * Request bodies read what they need inside the transaction, so running one twice is safe.
 * A locked database is retried a bounded number of times.
 */
import type Database from 'better-sqlite3';
import type { Logger } from '../../../core/logger.js';
import { retryWhileLocked } from './lock-retry.js';
import { isBusy, storeFailed, toStoreError } from './sqlite-errors.js';

interface Request {
  action: string;
  body: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  outcome?: { ok: true; value: unknown } | { ok: false; error: unknown };
}

export interface GroupCommitOptions {
  /** Attempts of a batch that finds the database locked (each waits for the busy timeout). */
  attempts: number;
  retryDelayMs: number;
  logger: Logger;
  /** Called first inside every write transaction, with the write lock held. */
  onBegin?: () => void;
  /** Called when a batch rolled back, whole or in part: what was read inside it may be gone. */
  onRollback?: () => void;
}

export class GroupCommit {
  private queue: Request[] = [];
  private flushing: Promise<void> | undefined;
  /** Every request in one transaction; throws (rolling all back) when any request fails. */
  private readonly plainBatch: Database.Transaction<(requests: Request[]) => void>;
  /** Each request in its own savepoint; a failing request is recorded and the rest commit. */
  private readonly isolatedBatch: Database.Transaction<(requests: Request[]) => void>;

  constructor(
    private readonly db: Database,
    private readonly file: string,
    private readonly options: GroupCommitOptions,
  ) {
    const savepoint = db.transaction((body: () => unknown) => body());
    this.plainBatch = db.transaction((requests: Request[]) => {
      options.onBegin?.();
      for (const request of requests) request.outcome = { ok: true, value: request.body() };
    });
    this.isolatedBatch = db.transaction((requests: Request[]) => {
      options.onBegin?.();
      for (const request of requests) {
        try {
          request.outcome = { ok: true, value: savepoint(request.body) };
        } catch (error) {
          if (isBusy(error)) throw error;
          options.onRollback?.();
          request.outcome = { ok: false, error };
        }
      }
    });
  }

  /** Runs `body` in a write transaction shared with the other requests of this turn of the event loop. */
  run<T>(action: string, body: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ action, body, resolve: resolve as (value: unknown) => void, reject });
      this.flushing ??= new Promise((resolveFlush) => setImmediate(resolveFlush)).then(() => this.flush());
    });
  }

  /** Resolves once every queued request has been committed or refused. */
  async idle(): Promise<void> {
    while (this.flushing !== undefined) await this.flushing;
  }

  private async flush(): Promise<void> {
    const requests = this.queue;
    this.queue = [];
    try {
      await this.commit(requests);
    } finally {
      this.flushing =
        this.queue.length > 0 ? new Promise((resolveFlush) => setImmediate(resolveFlush)).then(() => this.flush()) : undefined;
    }
  }

  private runBatch(requests: Request[]): void {
    for (const request of requests) delete request.outcome;
    try {
      this.plainBatch.immediate(requests);
      return;
    } catch (error) {
      this.options.onRollback?.();
      if (isBusy(error)) throw error;
      const [only] = requests;
      if (requests.length === 1 && only !== undefined) {
        only.outcome = { ok: false, error };
        return;
      }
    }
    for (const request of requests) delete request.outcome;
    this.isolatedBatch.immediate(requests);
  }

  private async commit(requests: Request[]): Promise<void> {
    const { attempts, retryDelayMs, logger } = this.options;
    const onRetry = (next: number) =>
      logger.warn(`database ${this.file} is locked by another process; retrying (attempt ${next} of ${attempts})`);
    try {
      await retryWhileLocked({ attempts, delayMs: retryDelayMs, onRetry }, () => {
        if (!this.db.open) throw storeFailed(this.file, 'closed', 'The run store is closed; open a new one.');
        this.runBatch(requests);
      });
    } catch (error) {
      for (const request of requests) request.reject(toStoreError(error, this.file, request.action, attempts));
      return;
    }
    for (const request of requests) {
      const outcome = request.outcome;
      if (outcome?.ok) request.resolve(outcome.value);
      else request.reject(toStoreError(outcome?.error, this.file, request.action));
    }
  }
}
