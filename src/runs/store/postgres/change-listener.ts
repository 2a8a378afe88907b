/**
 * Change notices across hosts: one connection per store LISTENs on the channel every
 * write to `runs` and `mcp_servers` notifies (see migrations.ts). When that connection
 * drops (server restart, network cut) it reconnects with a growing delay and then tells
 * every listener once, since writes may have happened while it was away. A notice is sent
 * after its write commits, so a writer that dies in between loses it: a safety tick tells
 * the listeners once a second all the same (as the SQLite watch's safety poll does).
 */
import pg from 'pg';
import type { Logger } from '../../../core/logger.js';
import type { StoreChangeListener } from '../run-store.js';
import { CHANGE_CHANNEL } from './migrations.js';

const RECONNECT_MS = { first: 100, max: 2000 };
const SAFETY_TICK_MS = 1000;

export class PgChangeListener {
  readonly #listeners = new Set<StoreChangeListener>();
  readonly #config: pg.ClientConfig;
  readonly #logger: Logger;
  #client: pg.Client | undefined;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;
  #delay = RECONNECT_MS.first;
  #telling = false;
  #tick: NodeJS.Timeout | undefined;

  readonly #tickMs: number;

  private constructor(config: pg.ClientConfig, logger: Logger, tickMs: number) {
    this.#config = config;
    this.#logger = logger;
    this.#tickMs = tickMs;
  }

  /** Resolves once LISTEN is in place, so no write after `open` goes unnoticed. */
  static async open(config: pg.ClientConfig, logger: Logger, tickMs = SAFETY_TICK_MS): Promise<PgChangeListener> {
    const listener = new PgChangeListener(config, logger, tickMs);
    await listener.#connect();
    return listener;
  }

  add(listener: StoreChangeListener): () => void {
    if (this.#closed) return () => {};
    // Each registration is its own entry, so one function watched twice is told twice.
    const entry: StoreChangeListener = () => listener();
    this.#listeners.add(entry);
    if (this.#tick === undefined) {
      this.#tick = setInterval(() => this.#tell(), this.#tickMs);
      this.#tick.unref();
    }
    return () => {
      this.#listeners.delete(entry);
      if (this.#listeners.size === 0) this.#stopTick();
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
    this.#stopTick();
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const client = new pg.Client(this.#config);
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    client.on('notification', () => this.#tell());
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    this.#delay = RECONNECT_MS.first;
  }

  #lost(client: pg.Client): void {
    if (this.#closed || this.#client !== client) return;
    this.#client = undefined;
    this.#logger.warn('lost the PostgreSQL change-notice connection; reconnecting');
    this.#schedule();
  }

  #schedule(): void {
    this.#retry = setTimeout(() => {
      this.#connect().then(
        () => this.#tell(),
        () => {
          this.#delay = Math.min(this.#delay * 2, RECONNECT_MS.max);
          if (!this.#closed) this.#schedule();
        },
      );
    }, this.#delay);
    this.#retry.unref();
  }

  #stopTick(): void {
    clearInterval(this.#tick);
    this.#tick = undefined;
  }

  /** Notices that arrive together (one read from the socket) become one: every runner re-reads on each. */
  #tell(): void {
    if (this.#telling) return;
    this.#telling = true;
    setImmediate(() => {
      this.#telling = false;
      for (const listener of [...this.#listeners]) listener();
    });
  }
}
