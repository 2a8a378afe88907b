/**
 * Turns SQLite failures into `STORE_FAILED` errors that name the database file and say
 * what to do, so no raw SQLite error reaches a user. `data.reason` is a store-neutral tag.
 */
import Database from 'better-sqlite3';
import { WeftError } from '../../../core/errors.js';

export type StoreFailureReason =
  'locked' | 'disk-full' | 'not-a-database' | 'corrupt' | 'read-only' | 'cannot-open' | 'io' | 'closed' | 'other';

export function sqliteCode(error: unknown): string | undefined {
  return error instanceof Database.SqliteError ? error.code : undefined;
}

/** True for the errors a retry can cure: another connection holds the lock. */
export function isBusy(error: unknown): boolean {
  const code = sqliteCode(error);
  return code !== undefined && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

export function storeFailed(file: string, reason: StoreFailureReason, message: string, cause?: unknown): WeftError {
  return new WeftError('STORE_FAILED', message, { data: { file, reason }, cause });
}

/**
 * `WeftError`s pass through; SQLite errors become `STORE_FAILED`; anything else (a bug)
 * is rethrown unchanged.
 *
 * @example toStoreError(new Database.SqliteError('database or disk is full', 'SQLITE_FULL'), '/x/weft.db', 'append events')
 * // → WeftError STORE_FAILED "Could not append events: the disk holding /x/weft.db is full. …"
 */
export function toStoreError(error: unknown, file: string, action: string, attempts = 1): unknown {
  if (error instanceof WeftError) return error;
  const code = sqliteCode(error);
  if (code === undefined) return error;
  const head = `Could not ${action}:`;
  if (isBusy(error)) {
    return storeFailed(
      file,
      'locked',
      `${head} the database ${file} stayed locked by another process through ${attempts} attempt(s). Another weft process is holding a long write; retry, and look for a stuck weft process if it keeps happening.`,
      error,
    );
  }
  if (code.startsWith('SQLITE_FULL'))
    return storeFailed(
      file,
      'disk-full',
      `${head} the disk holding ${file} is full. Free some space and retry; nothing of this change was written.`,
      error,
    );
  if (code.startsWith('SQLITE_NOTADB')) return notADatabase(file, error);
  if (code.startsWith('SQLITE_CORRUPT'))
    return storeFailed(
      file,
      'corrupt',
      `${head} the database ${file} is damaged (${error instanceof Error ? error.message : code}). Restore it from a backup, or move it away to start with an empty store.`,
      error,
    );
  if (code.startsWith('SQLITE_READONLY'))
    return storeFailed(
      file,
      'read-only',
      `${head} the database ${file} is read-only. Make the file and its directory writable by this user.`,
      error,
    );
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM') || code.startsWith('SQLITE_AUTH')) {
    return storeFailed(
      file,
      'cannot-open',
      `${head} cannot open the database ${file}. Check that the directory exists and is readable and writable by this user.`,
      error,
    );
  }
  if (code.startsWith('SQLITE_IOERR'))
    return storeFailed(file, 'io', `${head} the disk reported an I/O error on ${file} (${code}). Check the disk and retry.`, error);
  return storeFailed(
    file,
    'other',
    `${head} the database ${file} reported ${code}: ${error instanceof Error ? error.message : String(error)}.`,
    error,
  );
}

export function notADatabase(file: string, cause?: unknown): WeftError {
  return storeFailed(
    file,
    'not-a-database',
    `${file} is not a weft database (not an SQLite file). The file was left untouched. Move it away, or point WEFT_HOME / --storage-dir at another directory.`,
    cause,
  );
}
