/**
 * A SQLite store on a full disk (a 2 MB tmpfs, root) closes cleanly: `close()` used to throw
 * `SqliteError: database or disk is full` from its statistics pass (`PRAGMA optimize`), so
 * every command that touched the store on a full disk — a runner giving up included — ended
 * in "internal error" instead of its own clear message. The store stays intact.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { SqliteRunStore } from '../src/runs/store/sqlite/sqlite-run-store.js';

const base = mkdtempSync(join(tmpdir(), 'weft-full-disk-'));
const storageDir = join(base, 'home');

beforeAll(() => {
  if (userInfo().uid !== 0) throw new Error('This test mounts a tmpfs: run it as root.');
  mkdirSync(storageDir);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', storageDir]);
});

afterAll(() => {
  execFileSync('umount', [storageDir]);
  rmSync(base, { recursive: true, force: true });
});

describe('a SQLite store whose disk fills up', () => {
  it('refuses writes with a clear error, closes without throwing, and stays intact', async () => {
    const store = await SqliteRunStore.open({ storageDir });
    const run = await store.createRun({ workflow: 'w', workflowPath: join(base, 'w.toml'), cwd: base, initialStatus: 'queued' });
    // Fill what is left of the disk.
    let size = 1 << 20;
    for (let i = 0; size >= 512; i += 1) {
      try {
        writeFileSync(join(storageDir, `filler-${i}`), Buffer.alloc(size));
      } catch {
        size >>= 1;
      }
    }
    await expect(
      store.createRun({ workflow: 'w', workflowPath: join(base, 'w.toml'), cwd: base, initialStatus: 'queued' }),
    ).rejects.toThrow(/disk holding .*weft\.db is full/);
    await expect(store.close()).resolves.toBeUndefined();

    const db = new Database(join(storageDir, 'weft.db'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.prepare('SELECT id FROM runs').all()).toEqual([{ id: run.id }]);
    } finally {
      db.close();
    }
  });
});
