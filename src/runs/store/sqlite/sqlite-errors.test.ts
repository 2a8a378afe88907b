// SQLite failures become STORE_FAILED errors that name the file and say what to do.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../../core/errors.js';
import { isBusy, toStoreError } from './sqlite-errors.js';

const file = '/home/me/.weft/weft.db';
const sqlite = (code: string, message = 'sqlite says no') => new Database.SqliteError(message, code);

describe('toStoreError', () => {
  it('turns every SQLite failure into STORE_FAILED naming the file and what to do', () => {
    const cases: [string, string, RegExp][] = [
      ['SQLITE_BUSY', 'locked', /stayed locked by another process through 3 attempt/],
      ['SQLITE_FULL', 'disk-full', /disk holding .* is full\. Free some space/],
      ['SQLITE_NOTADB', 'not-a-database', /is not a weft database .* left untouched/],
      ['SQLITE_CORRUPT', 'corrupt', /is damaged .* Restore it from a backup/],
      ['SQLITE_READONLY_DBMOVED', 'read-only', /is read-only/],
      ['SQLITE_CANTOPEN', 'cannot-open', /cannot open the database/],
      ['SQLITE_IOERR_WRITE', 'io', /I\/O error on .* \(SQLITE_IOERR_WRITE\)/],
      ['SQLITE_MISMATCH', 'other', /reported SQLITE_MISMATCH: sqlite says no/],
    ];
    for (const [code, reason, message] of cases) {
      const error = toStoreError(sqlite(code), file, 'append events', 3) as WeftError;
      expect(error, code).toBeInstanceOf(WeftError);
      expect({ code: error.code, data: error.data }, code).toEqual({ code: 'STORE_FAILED', data: { file, reason } });
      expect(error.message, code).toContain(file);
      expect(error.message, code).toMatch(message);
    }
  });

  it('passes WeftErrors and non-SQLite errors through unchanged', () => {
    const weft = new WeftError('RUN_NOT_FOUND', 'nope');
    const bug = new TypeError('bug');
    expect(toStoreError(weft, file, 'x')).toBe(weft);
    expect(toStoreError(bug, file, 'x')).toBe(bug);
  });

  it('treats BUSY and LOCKED variants as retryable, nothing else', () => {
    expect(
      [sqlite('SQLITE_BUSY'), sqlite('SQLITE_BUSY_SNAPSHOT'), sqlite('SQLITE_LOCKED'), sqlite('SQLITE_FULL'), new Error('SQLITE_BUSY')].map(
        isBusy,
      ),
    ).toEqual([true, true, true, false, false]);
  });
});
