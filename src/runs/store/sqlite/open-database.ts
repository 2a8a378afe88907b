/**
 * Opens `<storageDir>/weft.db`: refuses a file that is not SQLite without touching it,
 * sets WAL, a 5 s busy timeout, synchronous=NORMAL (a commit survives a crash of the
 * process; a power cut may drop the last few, never corrupts) and foreign keys, then migrates.
 */
import { closeSync, mkdirSync, openSync, readSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './migrations.js';
import { notADatabase, storeFailed, toStoreError } from './sqlite-errors.js';

export const DATABASE_FILE = 'weft.db';
export const BUSY_TIMEOUT_MS = 5000;

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

export function databaseFile(storageDir: string): string {
  return join(resolve(storageDir), DATABASE_FILE);
}

/**
 * @example const db = openDatabase('/home/me/.weft', Date.now()); // → /home/me/.weft/weft.db, migrated
 */
export function openDatabase(storageDir: string, now: number, busyTimeoutMs = BUSY_TIMEOUT_MS): Database {
  const file = databaseFile(storageDir);
  try {
    mkdirSync(resolve(storageDir), { recursive: true });
  } catch (error) {
    throw storeFailed(
      file,
      'cannot-open',
      `Cannot create the storage dir ${resolve(storageDir)} (${(error as Error).message}). Point WEFT_HOME / --storage-dir at a writable directory.`,
      error,
    );
  }
  checkHeader(file);
  let db: Database | undefined;
  try {
    db = new Database(file, { timeout: busyTimeoutMs });
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal')
      throw storeFailed(
        file,
        'other',
        `The database ${file} could not switch to WAL mode (got '${String(mode)}'); keep the storage dir on a local disk.`,
      );
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('cache_size = -16384');
    db.pragma('temp_store = MEMORY');
    // Checkpoint every ~64 MiB of WAL instead of SQLite's 4 MiB. A checkpoint syncs the WAL
    // and the database file and copies each page once however often it was rewritten, and
    // consecutive appends rewrite the same pages (a run's newest events leaf): fewer, larger
    // checkpoints took 64 concurrent writers from ≈ 20k to ≈ 25–38k events/s (bench/store)
    // for at most 64 MiB more disk and a longer replay after a crash.
    db.pragma('wal_autocheckpoint = 16000');
    db.pragma('journal_size_limit = 67108864');
    migrate(db, file, now);
    return db;
  } catch (error) {
    db?.close();
    throw toStoreError(error, file, 'open the run store');
  }
}

/** Reads the first 16 bytes only: a file that is not SQLite is never opened by SQLite. */
function checkHeader(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw storeFailed(file, 'cannot-open', `Cannot read the database ${file} (${(error as Error).message}). Check its permissions.`, error);
  }
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const read = readSync(fd, head, 0, head.length, 0);
    if (read === 0) return;
    if (read < head.length || !head.equals(SQLITE_HEADER)) throw notADatabase(file);
  } finally {
    closeSync(fd);
  }
}
