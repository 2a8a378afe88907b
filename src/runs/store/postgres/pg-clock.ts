/**
 * The database's clock as seen from this host: the host's clock plus the offset to the
 * PostgreSQL server's, measured when the store opens and again every minute. Hosts' clocks
 * differ (a VM resumed, NTP not yet synced), so every time a shared store stamps — event
 * `at`, a run's `updated_at` that live lists follow, lease comparisons in the app — is on
 * this one clock: a worker whose clock is 30 s behind no longer stamps its changes 30 s
 * in the past, where a live list following "changes since" would miss them.
 */
import type pg from 'pg';

/** How often the offset is measured again (the host's clock may be stepped by NTP meanwhile). */
export const CLOCK_REMEASURE_MS = 60_000;

const DB_NOW = 'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS db';

type Query = (sql: string) => Promise<{ rows: { db: number }[] }>;

/** The offset from this host's clock to the database's, in ms (half the round trip is the error). */
export async function measureOffset(query: Query, hostNow: () => number = Date.now): Promise<number> {
  const sent = hostNow();
  const { rows } = await query(DB_NOW);
  const received = hostNow();
  const db = Number(rows[0]?.db);
  return Number.isFinite(db) ? Math.round(db - (sent + received) / 2) : 0;
}

export class DatabaseClock {
  #offset: number;
  readonly #timer: NodeJS.Timeout;

  private constructor(offset: number, query: Query) {
    this.#offset = offset;
    // A failed measure keeps the last offset: the store's own calls report an unreachable database.
    this.#timer = setInterval(
      () =>
        void measureOffset(query).then(
          (offset) => (this.#offset = offset),
          () => undefined,
        ),
      CLOCK_REMEASURE_MS,
    );
    this.#timer.unref();
  }

  static async open(pool: Pick<pg.Pool, 'query'>): Promise<DatabaseClock> {
    const query: Query = (sql) => pool.query<{ db: number }>(sql);
    return new DatabaseClock(await measureOffset(query), query);
  }

  /** Epoch ms on the database's clock. */
  readonly now = (): number => Date.now() + this.#offset;

  /** The last measured offset from this host's clock (positive: the database is ahead). */
  get offsetMs(): number {
    return this.#offset;
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
