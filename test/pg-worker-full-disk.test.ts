/**
 * A worker host's disk fills up (its storage dir and workspace root on a 3 MB tmpfs, root)
 * while the run store is PostgreSQL elsewhere: the stage that filled it fails with an error
 * naming ENOSPC and the directory, recorded in the store; the run follows its failure edge;
 * the same worker goes on to run other runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { usePgClusters } from './helpers/pg-clusters.js';
import { allEvents, type PgCluster } from './helpers/pg-workers.js';
import { runCli } from './helpers/run-cli.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const base = mkdtempSync(join(tmpdir(), 'weft-pg-full-disk-'));
const disk = join(base, 'disk');
const repo = join(base, 'repo');
let cluster: PgCluster;

beforeAll(async () => {
  if (userInfo().uid !== 0) throw new Error('This test mounts a tmpfs: run it as root.');
  mkdirSync(disk);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', disk]);
  mkdirSync(repo);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README'), 'hello\n');
  git('add', 'README');
  git('commit', '-q', '-m', 'first');
});
// Registered first, so it runs last: the workers and the server are gone before the disk is.
afterAll(() => {
  execFileSync('umount', ['--lazy', disk]);
  rmSync(base, { recursive: true, force: true });
});
const pg = usePgClusters({ ownServer: true });
beforeAll(async () => {
  cluster = await pg.start(4000);
});

describe('a worker whose disk fills up, the store on PostgreSQL', () => {
  it('fails the stage with ENOSPC and the directory, follows the failure edge, and keeps running other runs', async () => {
    const fill = await cluster.workflow(
      'fill',
      [
        '[workflow]',
        'name = "fill"',
        '',
        '[run.workspace]',
        'mode = "clone"',
        `repo = "${repo}"`,
        '',
        '[nodes.fill]',
        'kind = "command"',
        // Bounded (8 MB on a 3 MB disk), in case it ever ran elsewhere.
        'run = "head -c 8000000 /dev/zero > big 2>/dev/null; echo filled"',
        '',
        '[[nodes.fill.edges]]',
        'to = "done"',
        `when = 'status == "succeeded"'`,
        '',
        '[[nodes.fill.edges]]',
        'to = "cleanup"',
        '',
        '[nodes.done]',
        'kind = "command"',
        'run = "echo done"',
        '',
        '[nodes.cleanup]',
        'kind = "command"',
        'run = "rm -f big; echo cleaned"',
        '',
      ].join('\n'),
    );
    const later = await cluster.workflow('later', '[workflow]\nname = "later"\n\n[nodes.hello]\nkind = "command"\nrun = "echo hello"\n');
    const hostEnv = { WEFT_HOME: join(disk, 'home'), WEFT_WORKSPACE_ROOT: join(disk, 'workspaces') };
    const worker = await cluster.startWorker('w1', hostEnv);

    // Created as `weft run` does (the workspace is resolved at creation), on the worker's host.
    const created = await runCli(['--cwd', cluster.ws, 'run', '--detach', fill], {
      cwd: cluster.ws,
      env: { ...hostEnv, WEFT_DATABASE_URL: pg.url },
    });
    expect(created.code, created.stderr).toBe(0);
    const filled = created.stdout.trim().split('\n').at(-1)!;
    await vi.waitFor(
      async () =>
        expect(
          (await cluster.store.getRun(filled))?.status,
          `${worker.stderr()}\n${JSON.stringify(await allEvents(cluster.store, filled))}`,
        ).toMatch(/succeeded|failed/),
      { timeout: 30_000, interval: 200 },
    );
    const events = await allEvents(cluster.store, filled);
    const finished = events
      .filter((event) => event.type === 'stage-finished')
      .map((event) => event.payload as { node: string; status: string; error: string | null });
    const fillEnd = finished.find((entry) => entry.node === 'fill');
    expect(fillEnd?.status, JSON.stringify(finished)).toBe('failed');
    expect(fillEnd?.error).toMatch(/ENOSPC/);
    expect(fillEnd?.error).toContain(disk);
    expect(finished.map((entry) => `${entry.node}:${entry.status}`)).toEqual(['fill:failed', 'cleanup:succeeded']);

    const next = await cluster.queue(later, 'later');
    await vi.waitFor(async () => expect((await cluster.store.getRun(next))?.status, worker.stderr()).toBe('succeeded'), {
      timeout: 60_000,
      interval: 200,
    });
    expect(worker.child.exitCode).toBeNull();
  });
});
