import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitSync, initRepo, tempDirs } from '../../../test/kits/git-kit.js';
import { gitDirOf, readHeadFile } from './head-file.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('readHeadFile', () => {
  it('reads the commit and branch of a repository and of a worktree (whose .git is a file), as git does', () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const commit = gitSync(repo, ['rev-parse', 'HEAD']).trim();
    expect(readHeadFile(repo)).toEqual({ headCommit: commit, headBranch: 'main' });
    const worktree = join(dirs.make('trees'), 'wt');
    gitSync(repo, ['worktree', 'add', '--quiet', '-b', 'weft/runs/r1', worktree]);
    expect(gitDirOf(worktree)).toBe(join(repo, '.git', 'worktrees', 'wt'));
    expect(readHeadFile(worktree)).toEqual({ headCommit: commit, headBranch: 'weft/runs/r1' });
  });

  it('a detached HEAD has no branch; a packed ref or an unborn branch is left to git (undefined)', () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const commit = gitSync(repo, ['rev-parse', 'HEAD']).trim();
    gitSync(repo, ['pack-refs', '--all']);
    expect(readHeadFile(repo)).toBeUndefined();
    gitSync(repo, ['checkout', '--quiet', '--detach']);
    expect(readHeadFile(repo)).toEqual({ headCommit: commit, headBranch: undefined });
    gitSync(repo, ['checkout', '--quiet', '--orphan', 'fresh']);
    expect(readHeadFile(repo)).toBeUndefined();
    expect(readHeadFile(dirs.make('not-git'))).toBeUndefined();
  });
});
