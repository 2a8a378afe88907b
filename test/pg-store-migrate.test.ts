/**
 * `weft store migrate --to postgres://…` as a user runs it: a real SQLite store in a
 * storage dir, the CLI as a child process, a real PostgreSQL. Runs, their whole logs,
 * questions and the MCP catalogue arrive unchanged and are verified; a run in progress
 * refuses the whole copy; the URL's password appears nowhere in the output.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { newId } from '../src/core/ids.js';
import type { RunRecord } from '../src/runs/model/run-record.js';
import { PostgresRunStore } from '../src/runs/store/postgres/postgres-run-store.js';
import { SqliteRunStore } from '../src/runs/store/sqlite/sqlite-run-store.js';
import { documentedFields, expectFields } from './helpers/cli-json-fields.js';
import { testPostgres } from './helpers/postgres.js';
import { allEvents } from './helpers/pg-workers.js';
import { runCli } from './helpers/run-cli.js';

vi.setConfig({ testTimeout: 60_000 });

let home: string;
let url: string;
beforeAll(async () => {
  await testPostgres();
});
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'weft-migrate-'));
  url = await (await testPostgres()).createDatabase();
});
afterEach(async () => rm(home, { recursive: true, force: true }));
afterAll(async () => (await testPostgres()).dispose());

const params = { workflow: 'build', workflowPath: '/work/build.toml', cwd: '/work' };

async function seed(extra?: (store: SqliteRunStore) => Promise<void>): Promise<RunRecord[]> {
  const store = await SqliteRunStore.open({ storageDir: home });
  try {
    const parent = await store.createRun({ ...params, labels: { team: 'core' }, initialStatus: 'queued' });
    const questionId = newId();
    await store.appendEvents(parent.id, [
      { type: 'run-status-changed', payload: { to: 'starting' } },
      { type: 'run-status-changed', payload: { to: 'running' } },
      { type: 'question-asked', stageId: 'ask@1', payload: { questionId, kind: 'yes_no', prompt: 'Ship it?' } },
      { type: 'question-answered', stageId: 'ask@1', payload: { questionId, answer: true } },
      { type: 'run-status-changed', payload: { to: 'succeeded' } },
    ]);
    await store.setArchived(parent.id, true);
    const child = await store.createRun({ ...params, workflow: 'child', parentId: parent.id, initialStatus: 'queued' });
    await store.createRun({ ...params, goal: 'waits in the queue', initialStatus: 'queued' });
    await store.putMcpServer('docs', { type: 'stdio', command: ['docs-server'] });
    await store.setParent(child.id, null);
    await extra?.(store);
    return (await store.searchRuns({ archived: 'any' })).runs;
  } finally {
    await store.close();
  }
}

function secretOf(target: string): string {
  return decodeURIComponent(new URL(target).password);
}

it('copies runs, their events, questions and the MCP catalogue, and verifies the counts', async () => {
  const runs = await seed();
  const result = await runCli(['--storage-dir', home, 'store', 'migrate', '--to', url, '--json'], { cwd: home });
  expect(result.code, result.stderr).toBe(0);
  const report = JSON.parse(result.stdout) as Record<string, unknown>;
  expect(report).toMatchObject({ runs: 3, events: 13, questions: 1, mcpServers: 1, skipped: 0 });
  expectFields(report, (await documentedFields()).get('store migrate'));
  expect(result.stdout + result.stderr).not.toContain(secretOf(url));
  expect(String(report.target)).toContain(':***@');

  const source = await SqliteRunStore.open({ storageDir: home });
  const target = await PostgresRunStore.open({ url });
  try {
    for (const run of runs) {
      expect(await target.getRun(run.id)).toEqual(await source.getRun(run.id));
      expect(await allEvents(target, run.id)).toEqual(await source.listEvents(run.id, { limit: 1000 }));
      expect(await target.listQuestions(run.id)).toEqual(await source.listQuestions(run.id));
    }
    expect((await target.listMcpServers()).map((server) => [server.name, server.config])).toEqual([
      ['docs', { type: 'stdio', command: ['docs-server'] }],
    ]);
  } finally {
    await Promise.all([source.close(), target.close()]);
  }

  // Run again: everything is there already, nothing is copied twice.
  const again = await runCli(['--storage-dir', home, 'store', 'migrate', '--to', url, '--json'], { cwd: home });
  expect(again.code, again.stderr).toBe(0);
  expect(JSON.parse(again.stdout)).toMatchObject({ runs: 3, events: 13, skipped: 3 });
});

it('refuses the whole copy while a run is in progress, naming it, and copies nothing', async () => {
  let running = '';
  await seed(async (store) => {
    const run = await store.createRun({ ...params, initialStatus: 'queued' });
    await store.claimRun('worker-a', 60_000);
    await store.appendEvents(run.id, [{ type: 'run-status-changed', payload: { to: 'starting' } }]);
    running = run.id;
  });
  const result = await runCli(['--storage-dir', home, 'store', 'migrate', '--to', url], { cwd: home });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`Cannot migrate while runs are in progress: ${running} (starting)`);
  expect(result.stderr).toContain('nothing was copied');
  const target = await PostgresRunStore.open({ url });
  try {
    expect((await target.searchRuns({ archived: 'any' })).runs).toEqual([]);
  } finally {
    await target.close();
  }
});

it('names a target it cannot reach with the password masked', async () => {
  await seed();
  const unreachable = new URL(url);
  unreachable.password = 'hunter2-not-shown';
  unreachable.pathname = '/no_such_database';
  const result = await runCli(['--storage-dir', home, 'store', 'migrate', '--to', unreachable.toString()], { cwd: home });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(':***@127.0.0.1');
  expect(result.stdout + result.stderr).not.toContain('hunter2');
});
