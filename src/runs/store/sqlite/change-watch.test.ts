// SQLite change notices: writes by another process and by another connection are noticed — through the file watch, with the
// hour-long poll out of the picture, and through the poll alone when no file event comes — one commit is one notice, and
// nothing stays open once nobody watches.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { nextNotice } from '../../../../test/contract/run-store-changes.contract.js';
import { SqliteChangeWatch } from './change-watch.js';
import { SqliteRunStore } from './sqlite-run-store.js';

const REPO_ROOT = resolve(fileURLToPath(import.meta.url), '../../../../..');
const root = mkdtempSync(join(tmpdir(), 'weft-change-watch-'));
let dirs = 0;
const freshDir = () => {
  const dir = join(root, `store-${(dirs += 1)}`);
  mkdirSync(dir);
  return dir;
};
afterAll(() => rmSync(root, { recursive: true, force: true }));

const params = { workflow: 'build', workflowPath: 'build.toml', cwd: '/work' };

/** Resolves at the next notice of `watch` (then stops listening). */
function nextWatchNotice(watch: SqliteChangeWatch): Promise<void> {
  return new Promise((resolve) => {
    const stop = watch.add(() => {
      stop();
      resolve();
    });
  });
}

/** A real second process that opens the store's database with better-sqlite3 and commits one write. */
function writeFromAnotherProcess(file: string): Promise<number | null> {
  const script = `const Database = require('better-sqlite3'); const db = new Database(${JSON.stringify(file)}, { timeout: 5000 });
    db.prepare("INSERT INTO mcp_servers (name, config, updated_at) VALUES ('from-child', '{}', 1)").run(); db.close();`;
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['-e', script], { cwd: REPO_ROOT, stdio: 'inherit' });
    child.once('error', fail);
    child.once('exit', done);
  });
}

describe('SQLite change notices', () => {
  it('notices a commit by another process', async () => {
    const store = await SqliteRunStore.open({ storageDir: freshDir() });
    const notice = nextNotice(store);
    expect(await writeFromAnotherProcess(store.file)).toBe(0);
    await notice;
    expect((await store.listMcpServers()).map((server) => server.name)).toEqual(['from-child']);
    await store.close();
  });

  it('notices it through the file watch, long before the safety poll', async () => {
    const store = await SqliteRunStore.open({ storageDir: freshDir() });
    const watch = new SqliteChangeWatch(store.file, { pollMs: 3_600_000 });
    const notice = nextWatchNotice(watch);
    expect(await writeFromAnotherProcess(store.file)).toBe(0);
    await notice;
    watch.close();
    await store.close();
  });

  it('notices a commit by another connection of this process, whichever store wrote', async () => {
    const dir = freshDir();
    const watching = await SqliteRunStore.open({ storageDir: dir });
    const writing = await SqliteRunStore.open({ storageDir: dir });
    const fromOther = nextNotice(watching);
    const run = await writing.createRun(params);
    await fromOther;
    const fromItself = nextNotice(watching);
    await watching.appendEvents(run.id, [{ type: 'artifact-saved', payload: {} }]);
    await fromItself;
    expect((await writing.getRun(run.id))?.counts.events).toBe(2);
    await Promise.all([watching.close(), writing.close()]);
  });

  it('notices a commit through the safety poll alone when no file event comes', async () => {
    const store = await SqliteRunStore.open({ storageDir: freshDir() });
    const watch = new SqliteChangeWatch(store.file, { watchFiles: false, pollMs: 10 });
    const notice = nextWatchNotice(watch);
    expect(await writeFromAnotherProcess(store.file)).toBe(0);
    await notice;
    watch.close();
    await store.close();
  });

  it('gives one notice per commit, not one per file event', async () => {
    const store = await SqliteRunStore.open({ storageDir: freshDir() });
    const watch = new SqliteChangeWatch(store.file);
    let notices = 0;
    const stop = watch.add(() => (notices += 1));
    // One transaction writing many pages: many WAL writes, one new version.
    const first = nextWatchNotice(watch);
    await store.importRuns(
      Array.from({ length: 200 }, () => ({ run: { ...params, goal: 'x'.repeat(2000) } })),
      200,
    );
    await first;
    const second = nextWatchNotice(watch);
    await store.createRun(params);
    await second;
    expect(notices).toBe(2);
    stop();
    watch.close();
    await store.close();
  });

  it('keeps nothing open while nobody watches, and nothing after close', async () => {
    const store = await SqliteRunStore.open({ storageDir: freshDir() });
    const watch = new SqliteChangeWatch(store.file);
    expect(watch.active).toBe(false);
    const stopA = watch.add(() => {});
    const stopB = watch.add(() => {});
    expect(watch.active).toBe(true);
    stopA();
    expect(watch.active).toBe(true);
    stopB();
    expect(watch.active).toBe(false);
    watch.add(() => {});
    watch.close();
    expect(watch.active).toBe(false);
    watch.add(() => {});
    expect(watch.active).toBe(false);
    await store.close();
  });
});
