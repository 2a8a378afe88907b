import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { checkpoint } from './checkpoint.js';
import { diffWorkspace } from './diff.js';
import { gitSync, initRepo, reachableCommits, tempDirs, writeFiles } from '../../../test/kits/git-kit.js';
import { forkRunBranch, rewindRunBranch } from './history.js';
import { openWorkspace } from './open.js';
import { prepareWorkspace } from './prepare.js';
import type { OpenedWorkspace } from './workspace-spec.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** A run with three checkpoints: a.txt 1→2→3, plus a binary file in the second. */
async function threeStages(): Promise<{ repo: string; root: string; ws: OpenedWorkspace; commits: string[] }> {
  const repo = dirs.make('repo');
  initRepo(repo, { 'a.txt': '1\n' });
  const root = dirs.make('root');
  const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: {} });
  const ws = await openWorkspace({ runId: 'run1', workspace, root });
  const commits = [ws.head];
  for (const [index, content] of ['2\n', '3\n'].entries()) {
    writeFiles(ws.topDir, { 'a.txt': content, ...(index === 0 ? { 'logo.png': Buffer.from([137, 80, 78, 71, 0, 0, 1]) } : {}) });
    commits.push((await checkpoint(ws, { stageId: `s${index + 1}`, attempt: 1 }))?.commit as string);
  }
  return { repo, root, ws, commits };
}

describe('diffWorkspace', () => {
  it('the whole run: base to tip, with text and a per-file stat (binary marked)', async () => {
    const { repo, ws, commits } = await threeStages();
    const diff = await diffWorkspace(repo, ws.workspace);
    expect(diff).toMatchObject({
      from: commits[0],
      to: commits[2],
      filesChanged: 2,
      linesAdded: 1,
      linesRemoved: 1,
      truncated: false,
      files: [
        { path: 'a.txt', status: 'M', added: 1, removed: 1, binary: false },
        { path: 'logo.png', status: 'A', added: 0, removed: 0, binary: true },
      ],
    });
    expect(diff.text).toContain('-1\n+3\n');
    expect(diff.text).toContain('Binary files /dev/null and b/logo.png differ');
  });

  it('one stage: its checkpoint against its parent; --stat gives no text', async () => {
    const { repo, ws, commits } = await threeStages();
    const diff = await diffWorkspace(repo, ws.workspace, { to: commits[2], stat: true });
    expect(diff).toEqual({
      from: commits[1],
      to: commits[2],
      files: [{ path: 'a.txt', status: 'M', added: 1, removed: 1, binary: false }],
      filesChanged: 1,
      linesAdded: 1,
      linesRemoved: 1,
      truncated: false,
    });
  });

  it('one stage that made commits of its own: its diff covers them too', async () => {
    const { repo, ws, commits } = await threeStages();
    writeFiles(ws.topDir, { 'own.txt': 'committed by the stage\n' });
    gitSync(ws.topDir, ['add', 'own.txt']);
    gitSync(ws.topDir, ['commit', '--quiet', '-m', 'stage commit']);
    writeFiles(ws.topDir, { 'loose.txt': 'left for weft\n' });
    const made = await checkpoint(ws, { stageId: 's3', attempt: 1 });
    const diff = await diffWorkspace(repo, ws.workspace, { to: made?.commit, stat: true });
    expect(diff.from).toBe(commits[2]);
    expect(diff.files.map((file) => file.path)).toEqual(['loose.txt', 'own.txt']);
  });

  it('a large diff is cut at maxBytes and says so', async () => {
    const { repo, ws } = await threeStages();
    const diff = await diffWorkspace(repo, ws.workspace, { maxBytes: 40 });
    expect(diff.truncated).toBe(true);
    expect(Buffer.byteLength(diff.text ?? '')).toBeLessThanOrEqual(40);
  });
});

describe('rewindRunBranch', () => {
  it('moves the branch back and keeps every earlier commit reachable under refs/weft/abandoned', async () => {
    const { repo, root, ws, commits } = await threeStages();
    const before = reachableCommits(repo);
    const result = await rewindRunBranch(repo, 'run1', ws.workspace, commits[1] as string);
    expect(result).toEqual({ from: commits[2], to: commits[1], abandonedRef: 'refs/weft/abandoned/run1/1' });
    expect(gitSync(repo, ['rev-parse', ws.workspace.branch]).trim()).toBe(commits[1]);
    expect(reachableCommits(repo)).toEqual(before);
    const reopened = await openWorkspace({ runId: 'run1', workspace: ws.workspace, root });
    expect(readFileSync(join(reopened.topDir, 'a.txt'), 'utf8')).toBe('2\n');
    writeFiles(reopened.topDir, { 'a.txt': 'second try\n' });
    await checkpoint(reopened, { stageId: 's2', attempt: 2 });
    const again = await rewindRunBranch(repo, 'run1', ws.workspace, commits[0] as string);
    expect(again.abandonedRef).toBe('refs/weft/abandoned/run1/2');
    for (const commit of before) expect(reachableCommits(repo).has(commit)).toBe(true);
    expect(gitSync(repo, ['for-each-ref', '--format=%(refname)', 'refs/weft/abandoned/run1']).trim().split('\n')).toEqual([
      'refs/weft/abandoned/run1/1',
      'refs/weft/abandoned/run1/2',
    ]);
  });

  it('to the current tip moves nothing; to a commit not on the branch is refused', async () => {
    const { repo, ws, commits } = await threeStages();
    expect(await rewindRunBranch(repo, 'run1', ws.workspace, commits[2] as string)).toEqual({ from: commits[2], to: commits[2] });
    const elsewhere = gitSync(repo, ['commit-tree', '-m', 'x', `${commits[0]}^{tree}`]).trim();
    const error: unknown = await rewindRunBranch(repo, 'run1', ws.workspace, elsewhere).catch((caught: unknown) => caught);
    expect(WeftError.is(error, 'WORKSPACE_INVALID')).toBe(true);
  });
});

describe('forkRunBranch', () => {
  it("starts a new run's branch at a checkpoint; the old run and its commits stay as they were", async () => {
    const { repo, root, ws, commits } = await threeStages();
    const before = reachableCommits(repo);
    const forked = await forkRunBranch(repo, ws.workspace, commits[1] as string, 'run2');
    expect(forked).toEqual({ ...ws.workspace, branch: 'weft/runs/run2', baseCommit: commits[1] });
    expect(gitSync(repo, ['rev-parse', 'weft/runs/run1']).trim()).toBe(commits[2]);
    const child = await openWorkspace({ runId: 'run2', workspace: forked, root });
    expect(readFileSync(join(child.topDir, 'a.txt'), 'utf8')).toBe('2\n');
    expect(reachableCommits(repo)).toEqual(before);
    const error: unknown = await forkRunBranch(repo, ws.workspace, commits[1] as string, 'run2').catch((caught: unknown) => caught);
    expect(WeftError.is(error, 'WORKSPACE_BRANCH_EXISTS')).toBe(true);
  });
});
