// The database's clock seen from a host whose clock is off: the measured offset makes up for it.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testPostgres } from '../../../../test/helpers/postgres.js';
import { DatabaseClock, measureOffset } from './pg-clock.js';

let client: pg.Client;
beforeAll(async () => {
  client = new pg.Client({ connectionString: await (await testPostgres()).createDatabase() });
  await client.connect();
});
afterAll(async () => {
  await client.end();
  await (await testPostgres()).dispose();
});

it("measures the offset from a host's clock 30 s behind or ahead to the database's", async () => {
  const query = (sql: string) => client.query<{ db: number }>(sql);
  // The embedded server shares this machine's clock; a host 30 s off sees it 30 s the other way (give or take a round trip).
  expect(Math.abs((await measureOffset(query, () => Date.now() - 30_000)) - 30_000)).toBeLessThan(5_000);
  expect(Math.abs((await measureOffset(query, () => Date.now() + 30_000)) + 30_000)).toBeLessThan(5_000);
  const clock = await DatabaseClock.open(client);
  try {
    const [row] = (await client.query<{ db: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS db')).rows;
    expect(Math.abs(clock.now() - Number(row!.db))).toBeLessThan(5_000);
  } finally {
    clock.stop();
  }
});
