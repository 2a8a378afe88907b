/**
 * What the fuzzer's invariants read from outside the server: a snapshot of the store
 * (row counts of every table, read-only from the SQLite file) and
 * the resident memory of a process (from /proc).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** Row counts per table, as one comparable string (the store only appends and inserts). */
export function storeSnapshot(storageDir: string): string {
  const file = join(storageDir, 'weft.db');
  if (!existsSync(file)) return 'no store';
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as {
      name: string;
    }[];
    const counts = tables.map(({ name }) => `${name}=${(db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n}`);
    return counts.join(' ');
  } finally {
    db.close();
  }
}

/** Resident set size of `pid` in bytes (0 once it has gone). */
export function rssBytes(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}
