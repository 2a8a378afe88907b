import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { checkpoint } from './checkpoint.js';
import { commitAll, filesOf, gitSync, initRepo, tempDirs, writeFiles } from '../../../test/kits/git-kit.js';
import { mergeRunBranch } from './merge.js';
import { openWorkspace } from './open.js';
import { prepareWorkspace } from './prepare.js';
import type { OpenedWorkspace } from './workspace-spec.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

async function runThatEdits(files: Record<string, string>): Promise<{ repo: string; ws: OpenedWorkspace }> {
  const repo = dirs.make('repo');
  initRepo(repo, { 'a.txt': 'a\n', 'b.txt': 'b\n' });
  const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: {} });
  const ws = await openWorkspace({ runId: 'run1', workspace, root: dirs.make('root') });
  writeFiles(ws.topDir, files);
  await checkpoint(ws, { stageId: 's', attempt: 1 });
  return { repo, ws };
}

describe('mergeRunBranch', () => {
  it("fast-forwards the user's checked-out branch and updates their files", async () => {
    const { repo, ws } = await runThatEdits({ 'a.txt': 'by the run\n' });
    const result = await mergeRunBranch({ runId: 'run1', workspace: ws.workspace, repoDir: repo });
    expect(result).toMatchObject({ kind: 'fast-forward', into: 'main', commit: ws.head, updatedWorktree: repo });
    expect(gitSync(repo, ['rev-parse', 'main']).trim()).toBe(ws.head);
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('by the run\n');
    expect(gitSync(repo, ['status', '--porcelain'])).toBe('');
    expect((await mergeRunBranch({ runId: 'run1', workspace: ws.workspace, repoDir: repo })).kind).toBe('up-to-date');
  });

  it('makes a merge commit when the branch moved on, keeping unrelated local edits of the user', async () => {
    const { repo, ws } = await runThatEdits({ 'a.txt': 'by the run\n' });
    writeFiles(repo, { 'b.txt': 'by the user\n' });
    const userCommit = commitAll(repo, 'user work');
    writeFiles(repo, { 'notes.txt': 'uncommitted, untracked\n' });
    const result = await mergeRunBranch({ runId: 'run1', workspace: ws.workspace, repoDir: repo });
    expect(result.kind).toBe('merge-commit');
    expect(gitSync(repo, ['rev-list', '--parents', '-n', '1', 'main']).trim().split(' ')).toEqual([result.commit, userCommit, ws.head]);
    expect(filesOf(repo, 'main')).toEqual(
      new Map([
        ['a.txt', 'by the run\n'],
        ['b.txt', 'by the user\n'],
      ]),
    );
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('by the run\n');
    expect(readFileSync(join(repo, 'notes.txt'), 'utf8')).toBe('uncommitted, untracked\n');
  });

  it("a conflict lists the files and leaves the user's branch, index and files untouched", async () => {
    const { repo, ws } = await runThatEdits({ 'a.txt': 'by the run\n', 'b.txt': 'run b\n' });
    writeFiles(repo, { 'a.txt': 'by the user\n' });
    const userCommit = commitAll(repo, 'user work');
    writeFiles(repo, { 'b.txt': 'user edit in progress\n' });
    gitSync(repo, ['add', 'b.txt']);
    const status = gitSync(repo, ['status', '--porcelain']);
    const index = gitSync(repo, ['ls-files', '--stage']);
    const error: unknown = await mergeRunBranch({ runId: 'run1', workspace: ws.workspace, repoDir: repo }).catch(
      (caught: unknown) => caught,
    );
    expect(WeftError.is(error, 'WORKSPACE_MERGE_CONFLICT')).toBe(true);
    expect((error as WeftError).data.files).toEqual(['a.txt']);
    expect((error as WeftError).message).toContain('a.txt');
    expect(gitSync(repo, ['rev-parse', 'main']).trim()).toBe(userCommit);
    expect(gitSync(repo, ['status', '--porcelain'])).toBe(status);
    expect(gitSync(repo, ['ls-files', '--stage'])).toBe(index);
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('by the user\n');
  });

  it("refuses, touching nothing, when the user's uncommitted edits are in the files the merge brings", async () => {
    const { repo, ws } = await runThatEdits({ 'a.txt': 'by the run\n' });
    writeFiles(repo, { 'a.txt': 'user edit, not committed\n' });
    const error: unknown = await mergeRunBranch({ runId: 'run1', workspace: ws.workspace, repoDir: repo }).catch(
      (caught: unknown) => caught,
    );
    expect(WeftError.is(error, 'WORKSPACE_MERGE_CONFLICT')).toBe(true);
    expect((error as WeftError).data.files).toEqual(['a.txt']);
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('user edit, not committed\n');
    expect(gitSync(repo, ['rev-parse', 'main']).trim()).toBe(ws.workspace.baseCommit);
  });

  it('into a branch that is not checked out: only the ref moves', async () => {
    const { repo, ws } = await runThatEdits({ 'a.txt': 'by the run\n' });
    gitSync(repo, ['branch', 'release', ws.workspace.baseCommit]);
    const result = await mergeRunBranch({ runId: 'run1', workspace: ws.workspace, repoDir: repo, into: 'release' });
    expect(result).toEqual({ kind: 'fast-forward', into: 'release', commit: ws.head, previous: ws.workspace.baseCommit });
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('a\n');
    const error: unknown = await mergeRunBranch({ runId: 'run1', workspace: ws.workspace, repoDir: repo, into: 'nope' }).catch(
      (caught: unknown) => caught,
    );
    expect(WeftError.is(error, 'WORKSPACE_BRANCH_NOT_FOUND')).toBe(true);
  });
});
