/**
 * Change notices across hosts: one connection per store LISTENs on the channel every
 * write to `runs` and `mcp_servers` notifies (see migrations.ts). A notice names the runs
 * written (notice-payload.ts); the store's own writes are told to its listeners as they
 * commit (`local`), and their echo from the server is skipped. When that connection drops
 * (server restart, network cut) it reconnects with a growing delay and then tells every
 * listener once that anything may have changed, since writes may have happened while it
 * was away. A notice is sent after its write commits, so a writer that dies in between
 * loses it: a safety tick tells the listeners `unknown` once a second all the same (as
 * the SQLite watch's safety poll does).
 */
import pg from 'pg';
import type { Logger } from '../../../core/logger.js';
import { ChangeListeners, UNKNOWN_CHANGE, type StoreChange, type StoreChangeListener } from '../store-change.js';
import { CHANGE_CHANNEL } from './migrations.js';
import { decodeNotice } from './notice-payload.js';

const RECONNECT_MS = { first: 100, max: 2000 };
const SAFETY_TICK_MS = 1000;

export class PgChangeListener {
  readonly #listeners = new ChangeListeners();
  readonly #config: pg.ClientConfig;
  readonly #logger: Logger;
  /** This store's id in the notices it sends. */
  readonly source: string;
  #client: pg.Client | undefined;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;
  #delay = RECONNECT_MS.first;
  #tick: NodeJS.Timeout | undefined;

  readonly #tickMs: number;

  private constructor(config: pg.ClientConfig, logger: Logger, tickMs: number, source: string) {
    this.#config = config;
    this.#logger = logger;
    this.#tickMs = tickMs;
    this.source = source;
  }

  /** Resolves once LISTEN is in place, so no write after `open` goes unnoticed. */
  static async open(config: pg.ClientConfig, logger: Logger, source: string, tickMs = SAFETY_TICK_MS): Promise<PgChangeListener> {
    const listener = new PgChangeListener(config, logger, tickMs, source);
    await listener.#connect();
    return listener;
  }

  add(listener: StoreChangeListener): () => void {
    const stop = this.#listeners.add(listener, () => this.#stopTick());
    if (this.#listeners.size > 0 && this.#tick === undefined) {
      this.#tick = setInterval(() => this.#tell(), this.#tickMs);
      this.#tick.unref();
    }
    return stop;
  }

  /** Tells this store's listeners about a write of its own that committed. */
  local(change: StoreChange): void {
    if (this.#listeners.size === 0) return;
    this.#tell(change);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.close();
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
    const own = `${this.source} `;
    client.on('notification', (message) => {
      // This store's own notices come back too: its listeners were told at commit.
      if (this.#listeners.size === 0 || message.payload?.startsWith(own) === true) return;
      this.#tell(decodeNotice(message.payload).change);
    });
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

  /**
   * Notices that arrive together (one read from the socket, the writes of one turn) become
   * one; no change given means anything may have changed.
   */
  #tell(change: StoreChange = UNKNOWN_CHANGE): void {
    this.#listeners.tellSoon(change);
  }
}
