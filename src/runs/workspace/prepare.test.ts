import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { filesOf, gitSync, initBare, initRepo, tempDirs, weftFailure, writeFiles } from '../../../test/kits/git-kit.js';
import { prepareWorkspace } from './prepare.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('prepareWorkspace (worktree mode)', () => {
  it('creates the run branch at the checked-out commit and records repo, subdir and source branch', async () => {
    const repo = dirs.make('repo');
    const base = initRepo(repo, { 'app/src/main.txt': 'x\n', 'README.md': 'r\n' });
    const { workspace, head } = await prepareWorkspace({ runId: 'run1', cwd: join(repo, 'app', 'src'), spec: {} });
    expect(workspace).toEqual({
      mode: 'worktree',
      sourceRepo: repo,
      subdir: 'app/src',
      branch: 'weft/runs/run1',
      baseCommit: base,
      sourceBranch: 'main',
      keepBranch: false,
    });
    expect(head).toBe(base);
    expect(gitSync(repo, ['rev-parse', 'weft/runs/run1']).trim()).toBe(base);
  });

  it('outside a git repository fails with WORKSPACE_NOT_A_REPOSITORY saying what to do', async () => {
    const plain = dirs.make('plain');
    const error = await weftFailure(prepareWorkspace({ runId: 'run1', cwd: plain, spec: { mode: 'worktree' } }));
    expect(error.code).toBe('WORKSPACE_NOT_A_REPOSITORY');
    expect(error.message).toContain(plain);
    expect(error.message).toContain('mode = "in-place"');
  });

  it('leaves a dirty tree out by default and leaves the user index and files as they were', async () => {
    const repo = dirs.make('repo');
    const base = initRepo(repo, { 'a.txt': 'committed\n' });
    writeFiles(repo, { 'a.txt': 'edited\n', 'new.txt': 'untracked\n' });
    gitSync(repo, ['add', 'a.txt']);
    const statusBefore = gitSync(repo, ['status', '--porcelain']);
    const { workspace, head, uncommittedCheckpoint } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: {} });
    expect(head).toBe(base);
    expect(uncommittedCheckpoint).toBeUndefined();
    expect(filesOf(repo, workspace.branch)).toEqual(new Map([['a.txt', 'committed\n']]));
    expect(gitSync(repo, ['status', '--porcelain'])).toBe(statusBefore);
  });

  it('with include_uncommitted makes tracked and untracked changes (not ignored ones) the first checkpoint, the user tree untouched', async () => {
    const repo = dirs.make('repo');
    const base = initRepo(repo, { 'a.txt': 'committed\n', '.gitignore': 'secret.env\n', 'gone.txt': 'bye\n' });
    writeFiles(repo, { 'a.txt': 'edited\n', 'new dir/ü new.txt': 'untracked\n', 'secret.env': 'TOKEN=1\n' });
    gitSync(repo, ['rm', '--quiet', '--cached', 'gone.txt']);
    const statusBefore = gitSync(repo, ['status', '--porcelain']);
    const indexBefore = gitSync(repo, ['ls-files', '--stage']);
    const { workspace, head, uncommittedCheckpoint } = await prepareWorkspace({
      runId: 'run1',
      cwd: repo,
      spec: { includeUncommitted: true },
    });
    expect(uncommittedCheckpoint).toBe(head);
    expect(gitSync(repo, ['rev-parse', `${head}^`]).trim()).toBe(base);
    expect(workspace.baseCommit).toBe(base);
    expect(filesOf(repo, workspace.branch)).toEqual(
      new Map([
        ['.gitignore', 'secret.env\n'],
        ['a.txt', 'edited\n'],
        ['gone.txt', 'bye\n'],
        ['new dir/ü new.txt', 'untracked\n'],
      ]),
    );
    expect(gitSync(repo, ['log', '-1', '--format=%an <%ae>%n%(trailers:key=Weft-Run,valueonly)', head]).trim()).toBe(
      'weft <weft@localhost>\nrun1',
    );
    expect(gitSync(repo, ['status', '--porcelain'])).toBe(statusBefore);
    expect(gitSync(repo, ['ls-files', '--stage'])).toBe(indexBefore);
  });

  it('with include_uncommitted on a clean tree starts at the base, with no extra commit', async () => {
    const repo = dirs.make('repo');
    const base = initRepo(repo);
    const prepared = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: { includeUncommitted: true } });
    expect(prepared).toMatchObject({ head: base });
    expect(prepared.uncommittedCheckpoint).toBeUndefined();
  });

  it('on a detached HEAD starts from that commit and has no default merge target', async () => {
    const repo = dirs.make('repo');
    const first = initRepo(repo, { 'a.txt': '1\n' });
    writeFiles(repo, { 'a.txt': '2\n' });
    gitSync(repo, ['commit', '--quiet', '-am', 'second']);
    gitSync(repo, ['checkout', '--quiet', '--detach', first]);
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: {} });
    expect(workspace.baseCommit).toBe(first);
    expect(workspace.sourceBranch).toBeUndefined();
  });

  it('works in a shallow clone, and a base beyond its history names the base and how to list refs', async () => {
    const origin = dirs.make('origin');
    initRepo(origin, { 'a.txt': '1\n' });
    const older = gitSync(origin, ['rev-parse', 'HEAD']).trim();
    writeFiles(origin, { 'a.txt': '2\n' });
    gitSync(origin, ['commit', '--quiet', '-am', 'second']);
    const shallow = join(dirs.make('shallow'), 'clone');
    gitSync(dirs.make('cwd'), ['clone', '--quiet', '--depth', '1', `file://${origin}`, shallow]);
    expect(gitSync(shallow, ['rev-parse', '--is-shallow-repository']).trim()).toBe('true');
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: shallow, spec: {} });
    expect(workspace.baseCommit).toBe(gitSync(shallow, ['rev-parse', 'HEAD']).trim());
    const error = await weftFailure(prepareWorkspace({ runId: 'run2', cwd: shallow, spec: { base: older } }));
    expect(error.code).toBe('WORKSPACE_BASE_NOT_FOUND');
    expect(error.message).toContain(older);
    expect(error.message).toContain('--unshallow');
  });

  it('a base that does not exist fails naming it and how to list refs; no branch is left behind', async () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const error = await weftFailure(prepareWorkspace({ runId: 'run1', cwd: repo, spec: { base: 'no-such-branch' } }));
    expect(error.code).toBe('WORKSPACE_BASE_NOT_FOUND');
    expect(error.message).toContain("'no-such-branch'");
    expect(error.message).toContain('branch -a');
    expect(gitSync(repo, ['for-each-ref', 'refs/heads/weft'])).toBe('');
  });

  it('a base given as a branch or tag resolves to its commit; an option-looking base is not taken as an option', async () => {
    const repo = dirs.make('repo');
    const first = initRepo(repo);
    gitSync(repo, ['tag', 'v1']);
    writeFiles(repo, { 'b.txt': 'b\n' });
    gitSync(repo, ['add', '-A']);
    gitSync(repo, ['commit', '--quiet', '-m', 'b']);
    expect((await prepareWorkspace({ runId: 'run1', cwd: repo, spec: { base: 'v1' } })).workspace.baseCommit).toBe(first);
    expect((await weftFailure(prepareWorkspace({ runId: 'run2', cwd: repo, spec: { base: '--all' } }))).code).toBe(
      'WORKSPACE_BASE_NOT_FOUND',
    );
  });

  it('a run branch that already exists fails with WORKSPACE_BRANCH_EXISTS and leaves it alone', async () => {
    const repo = dirs.make('repo');
    const base = initRepo(repo);
    gitSync(repo, ['branch', 'weft/runs/run1']);
    const error = await weftFailure(prepareWorkspace({ runId: 'run1', cwd: repo, spec: {} }));
    expect(error.code).toBe('WORKSPACE_BRANCH_EXISTS');
    expect(error.message).toContain('branch -D weft/runs/run1');
    expect(gitSync(repo, ['rev-parse', 'weft/runs/run1']).trim()).toBe(base);
  });

  it('two runs created at the same moment get their own branches; the same id twice gets one branch and one error', async () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const [first, second] = await Promise.all([
      prepareWorkspace({ runId: '01JAAAAAAAAAAAAAAAAAAAAAA1', cwd: repo, spec: { includeUncommitted: true } }),
      prepareWorkspace({ runId: '01JAAAAAAAAAAAAAAAAAAAAAA2', cwd: repo, spec: { includeUncommitted: true } }),
    ]);
    expect(first.workspace.branch).not.toBe(second.workspace.branch);
    const outcomes = await Promise.allSettled([
      prepareWorkspace({ runId: 'same', cwd: repo, spec: {} }),
      prepareWorkspace({ runId: 'same', cwd: repo, spec: {} }),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const rejected = outcomes.find((outcome) => outcome.status === 'rejected');
    expect(WeftError.is(rejected?.reason, 'WORKSPACE_BRANCH_EXISTS')).toBe(true);
  });

  it('inside a submodule works on the submodule repository; in the superproject the submodule path is recorded as is', async () => {
    const library = dirs.make('library');
    initRepo(library, { 'lib.txt': 'lib\n' });
    const repo = dirs.make('super');
    initRepo(repo, { 'main.txt': 'main\n' });
    gitSync(repo, ['submodule', '--quiet', 'add', library, 'vendor/lib']);
    gitSync(repo, ['commit', '--quiet', '-m', 'add submodule']);
    const outer = await prepareWorkspace({ runId: 'outer', cwd: repo, spec: {} });
    expect(gitSync(repo, ['ls-tree', outer.workspace.branch, 'vendor/lib']).split(/\s/)[1]).toBe('commit');
    const inner = await prepareWorkspace({ runId: 'inner', cwd: join(repo, 'vendor', 'lib'), spec: {} });
    expect(inner.workspace.sourceRepo).toBe(join(repo, 'vendor', 'lib'));
    expect(filesOf(inner.workspace.sourceRepo as string, inner.workspace.branch)).toEqual(new Map([['lib.txt', 'lib\n']]));
  });

  it('a remote name becomes its URL and the run branch is on the remote from the start', async () => {
    const repo = dirs.make('repo');
    const base = initRepo(repo);
    const remote = initBare(join(dirs.make('remote'), 'remote.git'));
    gitSync(repo, ['remote', 'add', 'origin', remote]);
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: { remote: 'origin' } });
    expect(workspace.remoteUrl).toBe(remote);
    expect(gitSync(remote, ['rev-parse', 'weft/runs/run1']).trim()).toBe(base);
    const error = await weftFailure(prepareWorkspace({ runId: 'run2', cwd: repo, spec: { remote: 'upstream' } }));
    expect(error.code).toBe('WORKSPACE_INVALID');
    expect(error.message).toContain('remote -v');
    expect(gitSync(repo, ['for-each-ref', 'refs/heads/weft/runs/run2'])).toBe('');
  });

  it('a remote that refuses the first push fails the creation and leaves no branch behind', async () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const remote = initBare(join(dirs.make('remote'), 'strict.git'));
    writeFileSync(join(remote, 'hooks', 'pre-receive'), '#!/bin/sh\necho "no run branches here" >&2\nexit 1\n', { mode: 0o755 });
    const error = await weftFailure(prepareWorkspace({ runId: 'run1', cwd: repo, spec: { remote } }));
    expect(error.code).toBe('WORKSPACE_PUSH_REFUSED');
    expect(error.message).toContain('no run branches here');
    expect(gitSync(repo, ['for-each-ref', 'refs/heads/weft'])).toBe('');
  });
});

describe('prepareWorkspace (clone mode)', () => {
  it('resolves the base from the repository without cloning it, and needs repo', async () => {
    const origin = dirs.make('origin');
    const base = initRepo(origin);
    const cwd = dirs.make('cwd');
    mkdirSync(join(cwd, 'x'));
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd, spec: { mode: 'clone', repo: origin } });
    expect(workspace).toEqual({
      mode: 'clone',
      repoUrl: origin,
      subdir: '',
      branch: 'weft/runs/run1',
      baseCommit: base,
      sourceBranch: 'main',
      keepBranch: false,
    });
    expect((await weftFailure(prepareWorkspace({ runId: 'run2', cwd, spec: { mode: 'clone' } }))).code).toBe('WORKSPACE_INVALID');
    expect((await weftFailure(prepareWorkspace({ runId: 'run3', cwd, spec: { mode: 'clone', repo: origin, base: 'nope' } }))).code).toBe(
      'WORKSPACE_BASE_NOT_FOUND',
    );
  });
});
