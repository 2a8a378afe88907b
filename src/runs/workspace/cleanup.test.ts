import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { checkpoint } from './checkpoint.js';
import { findStaleWorkspaces, pruneStaleWorkspaces, removeWorkspace, repositoryFor } from './cleanup.js';
import { gitSync, initRepo, tempDirs, writeFiles } from '../../../test/kits/git-kit.js';
import { rewindRunBranch } from './history.js';
import { openWorkspace } from './open.js';
import { prepareWorkspace } from './prepare.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

async function openRun(repo: string, root: string, runId: string, keepBranch = false) {
  const { workspace } = await prepareWorkspace({ runId, cwd: repo, spec: { keepBranch } });
  return openWorkspace({ runId, workspace, root });
}

describe('removeWorkspace', () => {
  it("removes the worktree, its registration, the branch and the run's kept refs", async () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const root = dirs.make('root');
    const ws = await openRun(repo, root, 'run1');
    const start = ws.head;
    writeFiles(ws.topDir, { 'x.txt': 'x\n' });
    await checkpoint(ws, { stageId: 's', attempt: 1 });
    await rewindRunBranch(repo, 'run1', ws.workspace, start);
    expect(await removeWorkspace({ runId: 'run1', workspace: ws.workspace, root })).toEqual({
      removedDir: ws.topDir,
      deletedBranch: 'weft/runs/run1',
    });
    expect(existsSync(ws.topDir)).toBe(false);
    expect(gitSync(repo, ['worktree', 'list', '--porcelain'])).not.toContain(ws.topDir);
    expect(gitSync(repo, ['for-each-ref', 'refs/heads/weft', 'refs/weft'])).toBe('');
  });

  it('keeps the branch when the run asks to (keep_branch) or the caller says so (merged)', async () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const root = dirs.make('root');
    const kept = await openRun(repo, root, 'run1', true);
    expect(await removeWorkspace({ runId: 'run1', workspace: kept.workspace, root })).toEqual({ removedDir: kept.topDir });
    const merged = await openRun(repo, root, 'run2');
    await removeWorkspace({ runId: 'run2', workspace: merged.workspace, root, keepBranch: true });
    expect(gitSync(repo, ['for-each-ref', '--format=%(refname:short)', 'refs/heads/weft']).trim().split('\n')).toEqual([
      'weft/runs/run1',
      'weft/runs/run2',
    ]);
  });
});

describe('removeWorkspace and links', () => {
  it('removes a link planted where the working copy goes, never what it points at', async () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const root = dirs.make('root');
    const victim = dirs.make('victim');
    initRepo(victim, { 'precious.txt': 'keep\n' });
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: {} });
    symlinkSync(victim, join(root, 'run1'));
    await removeWorkspace({ runId: 'run1', workspace, root });
    expect(existsSync(join(root, 'run1'))).toBe(false);
    expect(readFileSync(join(victim, 'precious.txt'), 'utf8')).toBe('keep\n');
  });
});

describe('findStaleWorkspaces / pruneStaleWorkspaces', () => {
  it('lists and removes the working copies whose run is gone; branches stay; known runs are left alone', async () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const root = dirs.make('root');
    const live = await openRun(repo, root, 'live');
    const orphan = await openRun(repo, root, 'orphan');
    mkdirSync(join(root, 'junk'));
    const known = new Set(['live']);
    const isKnown = (runId: string): boolean => known.has(runId);
    expect(await findStaleWorkspaces(root, isKnown)).toEqual([
      { runId: 'junk', path: join(root, 'junk'), kind: 'other' },
      { runId: 'orphan', path: orphan.topDir, kind: 'worktree' },
    ]);
    expect((await pruneStaleWorkspaces(root, isKnown)).map((entry) => entry.runId)).toEqual(['junk', 'orphan']);
    expect(existsSync(orphan.topDir)).toBe(false);
    expect(existsSync(live.topDir)).toBe(true);
    expect(gitSync(repo, ['worktree', 'list', '--porcelain'])).not.toContain(orphan.topDir);
    expect(gitSync(repo, ['rev-parse', '--verify', '--quiet', 'weft/runs/orphan']).trim()).toMatch(/^[0-9a-f]{40}$/);
    expect(await findStaleWorkspaces(root, isKnown)).toEqual([]);
    expect(await findStaleWorkspaces(join(root, 'absent'), isKnown)).toEqual([]);
  });
});

describe('repositoryFor', () => {
  it("is the source repository on the creating host, the run's clone elsewhere, and a clear error when neither is here", async () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: {} });
    const root = dirs.make('root');
    expect(await repositoryFor(workspace, root, 'run1')).toBe(repo);
    const error: unknown = await repositoryFor({ ...workspace, sourceRepo: '/nowhere' }, root, 'run1').catch((caught: unknown) => caught);
    expect(WeftError.is(error, 'WORKSPACE_NOT_ON_HOST')).toBe(true);
  });

  it('refuses run ids that are not one safe path segment', async () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    for (const runId of ['../escape', 'a/b', '.hidden', '']) {
      const error: unknown = await prepareWorkspace({ runId, cwd: repo, spec: {} }).catch((caught: unknown) => caught);
      expect(WeftError.is(error, 'WORKSPACE_INVALID')).toBe(true);
    }
  });
});
