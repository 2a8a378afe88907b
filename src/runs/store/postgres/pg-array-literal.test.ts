// Array literals built by hand, read back by a real PostgreSQL exactly as they were.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPostgres } from '../../../../test/helpers/postgres.js';
import { scalarArray, textArray } from './pg-array-literal.js';

let client: pg.Client;
beforeAll(async () => {
  client = new pg.Client({ connectionString: await (await testPostgres()).createDatabase() });
  await client.connect();
});
afterAll(async () => {
  await client.end();
  await (await testPostgres()).dispose();
});

describe('PostgreSQL array literals', () => {
  it('reads back every text as given: quotes, backslashes, control characters, braces, commas, NULL as text, emoji and lone surrogates', async () => {
    const texts = [
      'plain',
      '',
      'NULL',
      'with "quotes" and \\ backslashes \\"',
      '{"json": ["a,b", "c}"], "n": null}',
      'line\nbreak\ttab\r\u0001\u001f',
      ' padded ',
      'ünïcödé ✓ 🎉',
      'lone \ud800 surrogate',
      '\\n is not a newline',
      'a\\',
    ];
    const { rows } = await client.query<{ value: string | null }>('SELECT unnest($1::text[]) AS value', [textArray([...texts, null])]);
    // A lone surrogate is not UTF-8: the driver sends the replacement character, as it would for a plain parameter.
    expect(rows.map((row) => row.value)).toEqual([...texts.map((text) => text.replace('\ud800', '\ufffd')), null]);
  });

  it('reads back numbers, booleans and nulls, and an empty array', async () => {
    const { rows } = await client.query<{ big: string[]; flags: boolean[]; small: number[]; none: string[] }>(
      'SELECT $1::bigint[] AS big, $2::boolean[] AS flags, $3::smallint[] AS small, $4::text[] AS none',
      [scalarArray([1_764_300_000_123, -5, null]), scalarArray([true, false, null]), scalarArray([0, 1]), textArray([])],
    );
    expect(rows[0]).toEqual({ big: ['1764300000123', '-5', null], flags: [true, false, null], small: [0, 1], none: [] });
  });
});
