/**
 * The store's way to the database: pooled queries as named prepared statements (parsed
 * once per connection), refused once the store is closed, failures turned into
 * `STORE_FAILED` naming the masked URL. Change notices go out after the writes commit,
 * naming the runs written: to this store's own listeners at once, and to every other
 * store by NOTIFY, one at a time (the writes committed while one is on its way share the
 * next) — a NOTIFY inside each write would hold PostgreSQL's cluster-wide notify lock
 * through that write's WAL flush, so every writing transaction on the server would commit
 * one after another.
 */
import type pg from 'pg';
import { ChangeCollector, UNKNOWN_CHANGE, type RunChange, type StoreChange } from '../store-change.js';
import type { PgChangeListener } from './change-listener.js';
import { CHANGE_CHANNEL } from './migrations.js';
import { encodeNotice } from './notice-payload.js';
import { pgStoreFailed, toPgStoreError } from './pg-errors.js';

const NOTIFY = `SELECT pg_notify('${CHANGE_CHANNEL}', $1)`;

export class PgStatements {
  readonly #pool: pg.Pool;
  readonly #database: string;
  readonly #names = new Map<string, string>();
  readonly #changes: Pick<PgChangeListener, 'local' | 'source'>;
  readonly #unsent = new ChangeCollector();
  #closed = false;
  #notifying = false;

  constructor(pool: pg.Pool, database: string, changes: Pick<PgChangeListener, 'local' | 'source'>) {
    this.#pool = pool;
    this.#database = database;
    this.#changes = changes;
  }

  async rows<Row extends pg.QueryResultRow = pg.QueryResultRow>(action: string, sql: string, params: unknown[]): Promise<Row[]> {
    return (await this.#run<Row>(action, sql, params)).rows;
  }

  /** Rows a write changed. */
  async count(action: string, sql: string, params: unknown[]): Promise<number> {
    return (await this.#run(action, sql, params)).rowCount ?? 0;
  }

  /**
   * Tells every store listening on the database (on any host) that these runs were written
   * (and whether one may have become claimable); without runs, that anything may have
   * changed (the MCP server catalogue).
   */
  notifyChanges(runs?: readonly RunChange[], claimable = false): void {
    if (this.#closed) return;
    const change: StoreChange = runs === undefined ? UNKNOWN_CHANGE : { kind: 'runs', runs, claimable };
    this.#changes.local(change);
    this.#unsent.merge(change);
    if (this.#notifying) return;
    this.#notifying = true;
    setImmediate(() => this.#sendNotice());
  }

  #sendNotice(): void {
    const change = this.#unsent.take();
    if (change === undefined || this.#closed) {
      this.#notifying = false;
      return;
    }
    // A lost notice costs only latency: every listener is also told `unknown` on a timer.
    this.#pool
      .query(NOTIFY, [encodeNotice(this.#changes.source, change)])
      .catch(() => undefined)
      .finally(() => this.#sendNotice());
  }

  /** Runs `body` in one transaction on one connection (plain, unnamed statements). */
  async transaction(action: string, body: (query: (sql: string, params: unknown[]) => Promise<unknown>) => Promise<void>): Promise<void> {
    if (this.#closed) throw pgStoreFailed(this.#database, 'closed', `Could not ${action}: the run store is closed; open a new one.`);
    const client = await this.#pool.connect().catch((error: unknown) => {
      throw toPgStoreError(error, this.#database, action);
    });
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      await body((sql, params) => client.query(sql, params));
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch((rollback: unknown) => (broken = rollback as Error));
      throw toPgStoreError(error, this.#database, action);
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }

  async #run<Row extends pg.QueryResultRow>(action: string, sql: string, params: unknown[]): Promise<pg.QueryResult<Row>> {
    if (this.#closed) throw pgStoreFailed(this.#database, 'closed', `Could not ${action}: the run store is closed; open a new one.`);
    let name = this.#names.get(sql);
    if (name === undefined) {
      name = `weft_${this.#names.size + 1}`;
      this.#names.set(sql, name);
    }
    try {
      return await this.#pool.query<Row>({ name, text: sql, values: params });
    } catch (error) {
      throw toPgStoreError(error, this.#database, action);
    }
  }
}
