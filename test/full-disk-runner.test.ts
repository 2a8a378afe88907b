/**
 * A stage fills the disk that holds the SQLite store (a 3 MB tmpfs as the storage dir,
 * root): its end cannot be recorded. The runner used to log that to a log on the same full
 * disk and exit 0 as if idle; the next runner took the run over and ran the stage again,
 * over and over. Now the runner exits non-zero with the store's message on stderr, the
 * stage is run again at most MAX_STAGE_TAKEOVERS times before it fails, once space is freed
 * the run finishes, and the database stays intact.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import Database from 'better-sqlite3';
import { SqliteRunStore } from '../src/runs/store/sqlite/sqlite-run-store.js';
import { MAX_STAGE_TAKEOVERS } from '../src/runs/engine/run-loop.js';
import { runCli } from './helpers/run-cli.js';

vi.setConfig({ testTimeout: 120_000 });

const mounted: string[] = [];

afterEach(() => {
  for (const base of mounted.splice(0)) {
    execFileSync('umount', ['--lazy', join(base, 'home')]);
    rmSync(base, { recursive: true, force: true });
  }
});

/** A storage dir on a fresh 3 MB tmpfs, a workspace beside it, and a queued run of `fill.toml`. */
async function fullDiskSetup(fillCommand: (home: string, ws: string) => string): Promise<{ home: string; ws: string; runId: string }> {
  if (userInfo().uid !== 0) throw new Error('This test mounts a tmpfs: run it as root.');
  const base = mkdtempSync(join(tmpdir(), 'weft-full-disk-run-'));
  const home = join(base, 'home');
  const ws = join(base, 'ws');
  mkdirSync(home);
  mkdirSync(ws);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', home]);
  mounted.push(base);
  const workflowPath = join(ws, 'fill.toml');
  writeFileSync(workflowPath, `[workflow]\nname = "fill"\n\n[nodes.fill]\nkind = "command"\nrun = "${fillCommand(home, ws)}"\n`);
  const store = await SqliteRunStore.open({ storageDir: home });
  try {
    const run = await store.createRun({ workflow: 'fill', workflowPath, cwd: ws, initialStatus: 'queued' });
    return { home, ws, runId: run.id };
  } finally {
    await store.close();
  }
}

/**
 * An on-demand runner. Its store give-up time is far beyond the test's timeout: a runner
 * must end because its stage could not be recorded, not because its claims kept failing.
 */
function runner(home: string, ws: string) {
  return runCli(['--cwd', ws, 'worker', '--until-idle'], {
    cwd: ws,
    env: { WEFT_HOME: home, WEFT_LEASE_MS: '2000', WEFT_STORE_GIVE_UP_MS: '3600000' },
  });
}

/** What the store holds, read after every runner has exited: stages started, the run's status, integrity. */
function inspect(home: string, runId: string): { started: string[]; abandoned: number; status: string; integrity: unknown } {
  const db = new Database(join(home, 'weft.db'), { readonly: true });
  try {
    const events = db.prepare('SELECT type, stage_id AS stageId, payload FROM events WHERE run_id = ? ORDER BY seq').all(runId) as {
      type: string;
      stageId: string | null;
      payload: string;
    }[];
    const status = (db.prepare('SELECT status FROM runs WHERE id = ?').get(runId) as { status: string }).status;
    return {
      started: events.filter((event) => event.type === 'stage-started').map((event) => event.stageId ?? ''),
      abandoned: events.filter(
        (event) => event.type === 'stage-finished' && (JSON.parse(event.payload) as { status: string }).status === 'abandoned',
      ).length,
      status,
      integrity: db.pragma('integrity_check', { simple: true }),
    };
  } finally {
    db.close();
  }
}

describe('a stage that fills the disk holding the SQLite store', () => {
  it('makes the runner exit non-zero with the store error on stderr; once space is freed the run finishes', async () => {
    // The first attempt fills the disk; a rerun does not.
    const { home, ws, runId } = await fullDiskSetup(
      (dir, work) => `if [ ! -e ${work}/filled ]; then touch ${work}/filled; cat /dev/zero > ${dir}/filler 2>/dev/null; fi; echo done`,
    );
    const first = await runner(home, ws);
    expect(first.code, first.stderr).not.toBe(0);
    expect(first.stderr).toMatch(/disk holding .*weft\.db is full/);
    expect(first.stderr).not.toMatch(/has not answered/);
    expect(inspect(home, runId).status).not.toBe('succeeded');

    rmSync(join(home, 'filler'));
    const later = await runner(home, ws);
    expect(later.code, later.stderr).toBe(0);
    const after = inspect(home, runId);
    expect(after.status).toBe('succeeded');
    expect(after.integrity).toBe('ok');
    expect(after.started.length).toBeLessThanOrEqual(2);
  });

  it('runs the stage again at most MAX_STAGE_TAKEOVERS times, then fails it with a clear error', async () => {
    // Every attempt fills the disk; the operator frees it after each runner gave up.
    const { home, ws, runId } = await fullDiskSetup((dir) => `cat /dev/zero > ${dir}/filler 2>/dev/null; echo done`);
    const codes: (number | null)[] = [];
    let last = '';
    for (let round = 0; round < MAX_STAGE_TAKEOVERS + 3; round += 1) {
      const result = await runner(home, ws);
      codes.push(result.code);
      last = result.stderr;
      rmSync(join(home, 'filler'), { force: true });
      if (result.code === 0) break;
    }
    const after = inspect(home, runId);
    expect(codes.at(-1), last).toBe(0);
    expect(codes.slice(0, -1).every((code) => code !== 0)).toBe(true);
    expect(after.status).toBe('failed');
    expect(after.started.length).toBeLessThanOrEqual(MAX_STAGE_TAKEOVERS + 1);
    expect(after.abandoned).toBe(MAX_STAGE_TAKEOVERS);
    expect(after.integrity).toBe('ok');
    const db = new Database(join(home, 'weft.db'), { readonly: true });
    try {
      const ended = db
        .prepare(`SELECT payload FROM events WHERE run_id = ? AND type = 'stage-finished' ORDER BY seq DESC LIMIT 1`)
        .get(runId) as { payload: string };
      expect((JSON.parse(ended.payload) as { error: string }).error).toMatch(/was lost \d+ times in a row .* not run again/);
    } finally {
      db.close();
    }
  });
});
