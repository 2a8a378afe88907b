import { existsSync, lstatSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpoint } from './checkpoint.js';
import { filesOf, gitSync, initBare, initRepo, tempDirs, weftFailure, writeFiles } from '../../../test/kits/git-kit.js';
import { rewindRunBranch } from './history.js';
import { openWorkspace } from './open.js';
import { prepareWorkspace } from './prepare.js';
import { pushRunBranch } from './push.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** Every file under `dir` except `.git`, path → content. */
function treeOf(dir: string): Map<string, string> {
  const listing = gitSync(dir, ['ls-files', '-z', '--cached', '--others', '--exclude-standard'])
    .split('\0')
    .filter((name) => name !== '');
  return new Map(listing.filter((name) => existsSync(join(dir, name))).map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
}

describe('openWorkspace', () => {
  it("gives the run its own worktree on its branch, in the creator's subfolder, the user's checkout untouched", async () => {
    const repo = dirs.make('repo');
    initRepo(repo, { 'pkg/a/file.txt': 'a\n', 'top.txt': 't\n' });
    const root = dirs.make('root');
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: join(repo, 'pkg', 'a'), spec: {} });
    const ws = await openWorkspace({ runId: 'run1', workspace, root });
    expect(ws.topDir).toBe(join(root, 'run1'));
    expect(ws.workDir).toBe(join(root, 'run1', 'pkg', 'a'));
    expect(ws.repoDir).toBe(repo);
    expect(readFileSync(join(ws.workDir, 'file.txt'), 'utf8')).toBe('a\n');
    expect(gitSync(ws.topDir, ['symbolic-ref', 'HEAD']).trim()).toBe('refs/heads/weft/runs/run1');
    writeFiles(ws.workDir, { 'file.txt': 'edited by the run\n' });
    expect(readFileSync(join(repo, 'pkg/a/file.txt'), 'utf8')).toBe('a\n');
    expect(gitSync(repo, ['status', '--porcelain'])).toBe('');
  });

  it("two runs working at once each see their own edits (the issue's 'edited by A / B' case)", async () => {
    const repo = dirs.make('repo');
    initRepo(repo, { 'app.txt': 'original\n' });
    const root = dirs.make('root');
    const opened = await Promise.all(
      ['A', 'B'].map(async (tag) => {
        const { workspace } = await prepareWorkspace({ runId: `run${tag}`, cwd: repo, spec: {} });
        return openWorkspace({ runId: `run${tag}`, workspace, root });
      }),
    );
    opened.forEach((ws, index) => writeFileSync(join(ws.workDir, 'app.txt'), `edited by ${index === 0 ? 'A' : 'B'}\n`));
    expect(opened.map((ws) => readFileSync(join(ws.workDir, 'app.txt'), 'utf8'))).toEqual(['edited by A\n', 'edited by B\n']);
    expect(readFileSync(join(repo, 'app.txt'), 'utf8')).toBe('original\n');
  });

  it("opening again resets to the last checkpoint: a dead attempt's files are gone, ignored files stay", async () => {
    const repo = dirs.make('repo');
    initRepo(repo, { 'a.txt': '1\n', '.gitignore': 'cache/\n' });
    const root = dirs.make('root');
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: {} });
    const first = await openWorkspace({ runId: 'run1', workspace, root });
    writeFiles(first.topDir, { 'a.txt': '2\n' });
    const made = await checkpoint(first, { stageId: 'one', attempt: 1 });
    writeFiles(first.topDir, { 'a.txt': 'half-written\n', 'partial/out.txt': 'junk\n', 'cache/dep.bin': 'kept\n' });
    const again = await openWorkspace({ runId: 'run1', workspace, root });
    expect(again.head).toBe(made?.commit);
    expect(treeOf(again.topDir)).toEqual(
      new Map([
        ['.gitignore', 'cache/\n'],
        ['a.txt', '2\n'],
      ]),
    );
    expect(readFileSync(join(again.topDir, 'cache/dep.bin'), 'utf8')).toBe('kept\n');
  });

  it("a lock left by a stage's git that was killed does not stop the resume", async () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const root = dirs.make('root');
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: {} });
    const first = await openWorkspace({ runId: 'run1', workspace, root });
    writeFileSync(gitSync(first.topDir, ['rev-parse', '--path-format=absolute', '--git-path', 'index.lock']).trim(), '');
    writeFiles(first.topDir, { 'README.md': 'dead attempt\n' });
    const again = await openWorkspace({ runId: 'run1', workspace, root });
    expect(readFileSync(join(again.topDir, 'README.md'), 'utf8')).toBe('hello\n');
    writeFiles(again.topDir, { 'README.md': 'next attempt\n' });
    expect((await checkpoint(again, { stageId: 's', attempt: 2 }))?.filesChanged).toBe(1);
  });

  it('a half-made working copy (a crash during worktree add) is replaced', async () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const root = dirs.make('root');
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: {} });
    writeFiles(join(root, 'run1'), { 'stray.txt': 'left by a crash\n' });
    const ws = await openWorkspace({ runId: 'run1', workspace, root });
    expect([...treeOf(ws.topDir).keys()]).toEqual(['README.md']);
  });

  it('a link planted where the working copy goes is removed, not followed', async () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const root = dirs.make('root');
    const victim = dirs.make('victim');
    writeFiles(victim, { 'precious.txt': 'keep me\n' });
    symlinkSync(victim, join(root, 'run1'));
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: {} });
    const ws = await openWorkspace({ runId: 'run1', workspace, root });
    expect(lstatSync(ws.topDir).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(victim, 'precious.txt'), 'utf8')).toBe('keep me\n');
  });

  it("a link to another git repository is not taken for a clone run's working copy", async () => {
    const origin = dirs.make('origin');
    initRepo(origin);
    const victim = dirs.make('victim');
    initRepo(victim, { 'tracked.txt': 'v\n' });
    writeFiles(victim, { 'tracked.txt': 'uncommitted work\n', 'untracked.txt': 'also\n' });
    const root = dirs.make('root');
    symlinkSync(victim, join(root, 'run1'));
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: dirs.make('cwd'), spec: { mode: 'clone', repo: origin } });
    await openWorkspace({ runId: 'run1', workspace, root });
    expect(readFileSync(join(victim, 'tracked.txt'), 'utf8')).toBe('uncommitted work\n');
    expect(readFileSync(join(victim, 'untracked.txt'), 'utf8')).toBe('also\n');
  });

  it('on another host (a second root, no source repository) clones the remote and sees exactly the checkpointed files', async () => {
    const repo = dirs.make('repo');
    initRepo(repo, { 'a.txt': 'base\n', '.gitignore': '*.tmp\n' });
    const remote = initBare(join(dirs.make('remote'), 'shared.git'));
    gitSync(repo, ['remote', 'add', 'origin', remote]);
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: { remote: 'origin' } });
    const hostA = await openWorkspace({ runId: 'run1', workspace, root: dirs.make('hostA') });
    writeFiles(hostA.topDir, { 'a.txt': 'stage one\n', 'dir/ü b.txt': 'new\n', 'scratch.tmp': 'ignored\n' });
    const made = await checkpoint(hostA, { stageId: 'one', attempt: 1 });
    expect(await pushRunBranch({ runId: 'run1', workspace, repoDir: hostA.repoDir })).toBe(true);
    writeFiles(hostA.topDir, { 'a.txt': 'dead attempt, never checkpointed\n' });
    const elsewhere = { ...workspace, sourceRepo: join(dirs.make('gone'), 'not-here') };
    const hostB = await openWorkspace({ runId: 'run1', workspace: elsewhere, root: dirs.make('hostB') });
    expect(hostB.repoDir).toBe(hostB.topDir);
    expect(hostB.head).toBe(made?.commit);
    expect(treeOf(hostB.topDir)).toEqual(
      new Map([
        ['.gitignore', '*.tmp\n'],
        ['a.txt', 'stage one\n'],
        ['dir/ü b.txt', 'new\n'],
      ]),
    );
    writeFiles(hostB.topDir, { 'b.txt': 'from host B\n' });
    const next = await checkpoint(hostB, { stageId: 'two', attempt: 1 });
    await pushRunBranch({ runId: 'run1', workspace: elsewhere, repoDir: hostB.repoDir });
    expect(gitSync(remote, ['rev-parse', 'weft/runs/run1']).trim()).toBe(next?.commit);
    const backOnA = await openWorkspace({ runId: 'run1', workspace, root: join(hostA.topDir, '..') });
    expect(backOnA.head).toBe(next?.commit);
    expect(readFileSync(join(backOnA.topDir, 'b.txt'), 'utf8')).toBe('from host B\n');
  });

  it('without a remote, another host cannot open a worktree run and is told why', async () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: {} });
    const error = await weftFailure(
      openWorkspace({ runId: 'run1', workspace: { ...workspace, sourceRepo: '/nowhere/repo' }, root: dirs.make('hostB') }),
    );
    expect(error.code).toBe('WORKSPACE_NOT_ON_HOST');
    expect(error.message).toContain('remote');
  });

  it('clone mode clones the repository per run and creates the run branch at the base', async () => {
    const origin = dirs.make('origin');
    const base = initRepo(origin, { 'lib.txt': 'lib\n' });
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: dirs.make('cwd'), spec: { mode: 'clone', repo: origin } });
    writeFiles(origin, { 'lib.txt': 'moved on\n' });
    gitSync(origin, ['commit', '--quiet', '-am', 'later']);
    const ws = await openWorkspace({ runId: 'run1', workspace, root: dirs.make('root') });
    expect(ws.head).toBe(base);
    expect(readFileSync(join(ws.topDir, 'lib.txt'), 'utf8')).toBe('lib\n');
    writeFiles(ws.topDir, { 'lib.txt': 'changed\n' });
    expect((await checkpoint(ws, { stageId: 's', attempt: 1 }))?.files.map((file) => file.path)).toEqual(['lib.txt']);
    expect(gitSync(origin, ['for-each-ref', 'refs/heads/weft'])).toBe('');
  });

  it('clone mode with a remote: a runner on another host continues from the pushed checkpoint', async () => {
    const origin = dirs.make('origin');
    initRepo(origin, { 'lib.txt': 'lib\n' });
    const remote = initBare(join(dirs.make('remote'), 'runs.git'));
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: dirs.make('cwd'), spec: { mode: 'clone', repo: origin, remote } });
    const hostA = await openWorkspace({ runId: 'run1', workspace, root: dirs.make('hostA') });
    writeFiles(hostA.topDir, { 'lib.txt': 'stage one\n' });
    const made = await checkpoint(hostA, { stageId: 'one', attempt: 1 });
    await pushRunBranch({ runId: 'run1', workspace, repoDir: hostA.repoDir });
    const hostB = await openWorkspace({ runId: 'run1', workspace, root: dirs.make('hostB') });
    expect(hostB.head).toBe(made?.commit);
    expect(treeOf(hostB.topDir)).toEqual(new Map([['lib.txt', 'stage one\n']]));
  });

  it('a repository with a submodule: the worktree opens, the (unpopulated) submodule is no change, edits beside it are checkpointed', async () => {
    const library = dirs.make('library');
    initRepo(library, { 'lib.txt': 'lib\n' });
    const repo = dirs.make('super');
    initRepo(repo, { 'main.txt': 'main\n' });
    gitSync(repo, ['submodule', '--quiet', 'add', library, 'vendor/lib']);
    gitSync(repo, ['commit', '--quiet', '-m', 'add submodule']);
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: {} });
    const ws = await openWorkspace({ runId: 'run1', workspace, root: dirs.make('root') });
    expect(await checkpoint(ws, { stageId: 'noop', attempt: 1 })).toBeNull();
    writeFiles(ws.topDir, { 'main.txt': 'edited\n' });
    expect((await checkpoint(ws, { stageId: 'edit', attempt: 1 }))?.files.map((file) => file.path)).toEqual(['main.txt']);
    expect(gitSync(repo, ['ls-tree', workspace.branch, 'vendor/lib']).split(/\s/)[1]).toBe('commit');
  });
});

describe('pushRunBranch', () => {
  it('a remote that refuses the push gives WORKSPACE_PUSH_REFUSED with its message; nothing is lost locally', async () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const remote = initBare(join(dirs.make('remote'), 'strict.git'));
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: { remote } });
    writeFileSync(join(remote, 'hooks', 'pre-receive'), '#!/bin/sh\necho "policy: run branches need review" >&2\nexit 1\n', {
      mode: 0o755,
    });
    const ws = await openWorkspace({ runId: 'run1', workspace, root: dirs.make('root') });
    writeFiles(ws.topDir, { 'work.txt': 'valuable\n' });
    const made = await checkpoint(ws, { stageId: 's', attempt: 1 });
    const error = await weftFailure(pushRunBranch({ runId: 'run1', workspace, repoDir: ws.repoDir }));
    expect(error.code).toBe('WORKSPACE_PUSH_REFUSED');
    expect(error.message).toContain('policy: run branches need review');
    expect(error.message).toContain('Nothing is lost');
    expect(filesOf(repo, workspace.branch).get('work.txt')).toBe('valuable\n');
    expect(gitSync(repo, ['rev-parse', workspace.branch]).trim()).toBe(made?.commit);
  });

  it('after a rewind, pushes the branch back and the abandoned tip along with it', async () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const remote = initBare(join(dirs.make('remote'), 'shared.git'));
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: { remote } });
    const ws = await openWorkspace({ runId: 'run1', workspace, root: dirs.make('root') });
    const start = ws.head;
    writeFiles(ws.topDir, { 'x.txt': 'x\n' });
    const made = await checkpoint(ws, { stageId: 's', attempt: 1 });
    await pushRunBranch({ runId: 'run1', workspace, repoDir: ws.repoDir });
    await rewindRunBranch(ws.repoDir, 'run1', workspace, start);
    await pushRunBranch({ runId: 'run1', workspace, repoDir: ws.repoDir });
    expect(gitSync(remote, ['rev-parse', 'weft/runs/run1']).trim()).toBe(start);
    expect(gitSync(remote, ['rev-parse', 'refs/weft/abandoned/run1/1']).trim()).toBe(made?.commit);
  });

  it("a runner that lost the run to another host cannot overwrite that host's checkpoints on the remote", async () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const remote = initBare(join(dirs.make('remote'), 'shared.git'));
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: { remote } });
    const hostA = await openWorkspace({ runId: 'run1', workspace, root: dirs.make('hostA') });
    const elsewhere = { ...workspace, sourceRepo: '/not/on/this/host' };
    const hostB = await openWorkspace({ runId: 'run1', workspace: elsewhere, root: dirs.make('hostB') });
    writeFiles(hostB.topDir, { 'b.txt': 'host B took over\n' });
    const fromB = await checkpoint(hostB, { stageId: 'two', attempt: 2 });
    await pushRunBranch({ runId: 'run1', workspace: elsewhere, repoDir: hostB.repoDir });
    writeFiles(hostA.topDir, { 'a.txt': 'host A, too late\n' });
    const fromA = await checkpoint(hostA, { stageId: 'two', attempt: 1 });
    const error = await weftFailure(pushRunBranch({ runId: 'run1', workspace, repoDir: hostA.repoDir }));
    expect(error.code).toBe('WORKSPACE_PUSH_REFUSED');
    expect(gitSync(remote, ['rev-parse', 'weft/runs/run1']).trim()).toBe(fromB?.commit);
    expect(gitSync(repo, ['rev-parse', 'weft/runs/run1']).trim()).toBe(fromA?.commit);
  });

  it('credentials in a remote URL never reach the error', async () => {
    const repo = dirs.make('repo');
    initRepo(repo);
    const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: {} });
    const error = await weftFailure(
      pushRunBranch({
        runId: 'run1',
        workspace: { ...workspace, remoteUrl: 'http://alice:s3cr3t-pass@127.0.0.1:9/repo.git' },
        repoDir: repo,
      }),
    );
    expect(error.code).toBe('WORKSPACE_PUSH_REFUSED');
    expect(JSON.stringify({ message: error.message, data: error.data })).not.toContain('s3cr3t-pass');
  });
});
