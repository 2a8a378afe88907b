import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpoint } from './checkpoint.js';
import { blobBytes, filesOf, gitSync, initRepo, reachableCommits, tempDirs, weftFailure, writeFiles } from '../../../test/kits/git-kit.js';
import { openWorkspace } from './open.js';
import { prepareWorkspace } from './prepare.js';
import type { OpenedWorkspace } from './workspace-spec.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

async function opened(
  files: Record<string, string | Buffer> = { 'README.md': 'hello\n', '.gitignore': 'node_modules/\n*.log\n' },
): Promise<{ repo: string; ws: OpenedWorkspace }> {
  const repo = dirs.make('repo');
  initRepo(repo, files);
  const { workspace } = await prepareWorkspace({ runId: 'run1', cwd: repo, spec: {} });
  const ws = await openWorkspace({ runId: 'run1', workspace, root: dirs.make('root') });
  return { repo, ws };
}

describe('checkpoint', () => {
  it('a stage that changed nothing makes no commit', async () => {
    const { repo, ws } = await opened();
    const before = gitSync(repo, ['rev-parse', ws.workspace.branch]).trim();
    expect(await checkpoint(ws, { stageId: 'noop', attempt: 1 })).toBeNull();
    expect(gitSync(repo, ['rev-parse', ws.workspace.branch]).trim()).toBe(before);
  });

  it('commits tracked and untracked changes on the run branch with trailers, identity and a per-file summary', async () => {
    const { repo, ws } = await opened({ 'README.md': 'one\ntwo\n', 'old.txt': 'old\n' });
    const previous = ws.head;
    writeFiles(ws.topDir, { 'README.md': 'one\nTWO\nthree\n', 'src/new.ts': 'export {};\n' });
    rmSync(join(ws.topDir, 'old.txt'));
    const made = await checkpoint(ws, { stageId: 'build', attempt: 2, identity: { name: 'Bot', email: 'bot@example.com' } });
    expect(made).toEqual({
      commit: ws.head,
      parent: previous,
      filesChanged: 3,
      linesAdded: 3,
      linesRemoved: 2,
      files: [
        { path: 'README.md', status: 'M', added: 2, removed: 1, binary: false },
        { path: 'old.txt', status: 'D', added: 0, removed: 1, binary: false },
        { path: 'src/new.ts', status: 'A', added: 1, removed: 0, binary: false },
      ],
    });
    expect(gitSync(repo, ['rev-parse', ws.workspace.branch]).trim()).toBe(made?.commit);
    const log = gitSync(repo, ['log', '-1', '--format=%an <%ae>|%cn|%s|%(trailers:only,unfold)', ws.workspace.branch]);
    expect(log.trim()).toBe('Bot <bot@example.com>|Bot|weft: build@2|Weft-Run: run1\nWeft-Stage: build\nWeft-Attempt: 2');
    expect(await checkpoint(ws, { stageId: 'next', attempt: 1 })).toBeNull();
  });

  it('leaves ignored files out of the checkpoint and in the working copy', async () => {
    const { repo, ws } = await opened();
    writeFiles(ws.topDir, { 'node_modules/pkg/index.js': 'x', 'debug.log': 'log', 'kept.txt': 'k\n' });
    const made = await checkpoint(ws, { stageId: 's', attempt: 1 });
    expect(made?.files.map((file) => file.path)).toEqual(['kept.txt']);
    expect([...filesOf(repo, ws.workspace.branch).keys()].sort()).toEqual(['.gitignore', 'README.md', 'kept.txt']);
    expect(existsSync(join(ws.topDir, 'node_modules/pkg/index.js'))).toBe(true);
  });

  it('only ignored files changed: no commit', async () => {
    const { ws } = await opened();
    writeFiles(ws.topDir, { 'build.log': 'noise' });
    expect(await checkpoint(ws, { stageId: 's', attempt: 1 })).toBeNull();
  });

  it('handles binary files, paths with spaces and non-ASCII names, and names that look like pathspec magic', async () => {
    const { repo, ws } = await opened();
    const binary = Buffer.from([0, 1, 2, 255, 0, 10, 13, 0]);
    writeFiles(ws.topDir, { 'dir with space/ünïcødé 文件.txt': 'hi\n', 'image.bin': binary, '*.txt': 'star\n', ':(glob)x': 'magic\n' });
    const made = await checkpoint(ws, { stageId: 's', attempt: 1 });
    expect(made?.files).toEqual([
      { path: '*.txt', status: 'A', added: 1, removed: 0, binary: false },
      { path: ':(glob)x', status: 'A', added: 1, removed: 0, binary: false },
      { path: 'dir with space/ünïcødé 文件.txt', status: 'A', added: 1, removed: 0, binary: false },
      { path: 'image.bin', status: 'A', added: 0, removed: 0, binary: true },
    ]);
    expect(blobBytes(repo, `${ws.workspace.branch}:image.bin`)).toEqual(binary);
  });

  it('commits a file over 50 MB', async () => {
    const { repo, ws } = await opened();
    const big = Buffer.alloc(51 * 1024 * 1024, 7);
    big.write('start of a big file\n');
    writeFileSync(join(ws.topDir, 'big.dat'), big);
    const made = await checkpoint(ws, { stageId: 's', attempt: 1 });
    expect(made?.files.map((file) => file.path)).toEqual(['big.dat']);
    expect(gitSync(repo, ['cat-file', '-s', `${ws.workspace.branch}:big.dat`]).trim()).toBe(String(big.length));
  });

  it("folds in a stage's own commits that descend from the last checkpoint", async () => {
    const { repo, ws } = await opened();
    const previous = ws.head;
    writeFiles(ws.topDir, { 'a.txt': 'by the stage\n' });
    gitSync(ws.topDir, ['add', 'a.txt']);
    gitSync(ws.topDir, ['commit', '--quiet', '-m', 'stage commit']);
    const stageCommit = gitSync(ws.topDir, ['rev-parse', 'HEAD']).trim();
    writeFiles(ws.topDir, { 'b.txt': 'left uncommitted\n' });
    const made = await checkpoint(ws, { stageId: 's', attempt: 1 });
    expect(made?.parent).toBe(previous);
    expect(made?.files.map((file) => file.path)).toEqual(['a.txt', 'b.txt']);
    expect(
      gitSync(repo, ['rev-list', '--first-parent', `${previous}..${ws.workspace.branch}`])
        .trim()
        .split('\n'),
    ).toEqual([made?.commit, stageCommit]);
  });

  it('a stage that committed everything itself still gets a checkpoint carrying the trailers', async () => {
    const { repo, ws } = await opened();
    writeFiles(ws.topDir, { 'a.txt': 'x\n' });
    gitSync(ws.topDir, ['add', 'a.txt']);
    gitSync(ws.topDir, ['commit', '--quiet', '-m', 'stage commit']);
    const made = await checkpoint(ws, { stageId: 's', attempt: 1 });
    expect(made?.files.map((file) => file.path)).toEqual(['a.txt']);
    expect(gitSync(repo, ['log', '-1', '--format=%(trailers:key=Weft-Stage,valueonly)', ws.workspace.branch]).trim()).toBe('s');
  });

  it('a stage that ran `git checkout -b` and committed is folded in and HEAD is back on the run branch', async () => {
    const { ws } = await opened();
    gitSync(ws.topDir, ['checkout', '--quiet', '-b', 'side']);
    writeFiles(ws.topDir, { 'side.txt': 's\n' });
    gitSync(ws.topDir, ['add', '-A']);
    gitSync(ws.topDir, ['commit', '--quiet', '-m', 'side']);
    const made = await checkpoint(ws, { stageId: 's', attempt: 1 });
    expect(made?.files.map((file) => file.path)).toEqual(['side.txt']);
    expect(gitSync(ws.topDir, ['symbolic-ref', 'HEAD']).trim()).toBe(`refs/heads/${ws.workspace.branch}`);
    expect(gitSync(ws.topDir, ['status', '--porcelain'])).toBe('');
  });

  it('a stage that ran `git checkout` of an older commit fails with WORKSPACE_HISTORY_REWRITTEN; its files are kept and the branch stays', async () => {
    const { repo, ws } = await opened({ 'a.txt': '1\n' });
    const first = ws.head;
    writeFiles(ws.topDir, { 'a.txt': '2\n' });
    const second = (await checkpoint(ws, { stageId: 'one', attempt: 1 }))?.commit as string;
    gitSync(ws.topDir, ['checkout', '--quiet', '--detach', first]);
    writeFiles(ws.topDir, { 'work.txt': 'precious\n' });
    const error = await weftFailure(checkpoint(ws, { stageId: 'two', attempt: 1 }));
    expect(error.code).toBe('WORKSPACE_HISTORY_REWRITTEN');
    expect(error.data).toMatchObject({ expected: second, found: first, rescuedRef: 'refs/weft/rescued/run1/1' });
    expect(error.message).toContain(second);
    expect(error.message).toContain(first);
    expect(gitSync(repo, ['rev-parse', ws.workspace.branch]).trim()).toBe(second);
    expect(filesOf(repo, 'refs/weft/rescued/run1/1').get('work.txt')).toBe('precious\n');
    expect(ws.head).toBe(second);
  });

  it('a stage that ran `git reset --hard HEAD~1` fails; the branch is put back and nothing is lost', async () => {
    const { repo, ws } = await opened({ 'a.txt': '1\n' });
    writeFiles(ws.topDir, { 'a.txt': '2\n' });
    const second = (await checkpoint(ws, { stageId: 'one', attempt: 1 }))?.commit as string;
    gitSync(ws.topDir, ['reset', '--quiet', '--hard', 'HEAD~1']);
    const error = await weftFailure(checkpoint(ws, { stageId: 'two', attempt: 1 }));
    expect(error.code).toBe('WORKSPACE_HISTORY_REWRITTEN');
    expect(gitSync(repo, ['rev-parse', ws.workspace.branch]).trim()).toBe(second);
    expect(reachableCommits(repo).has(second)).toBe(true);
  });

  it('`git reset --hard` to HEAD (dropping uncommitted edits) is fine: no change, no commit', async () => {
    const { ws } = await opened();
    writeFiles(ws.topDir, { 'README.md': 'edited\n' });
    gitSync(ws.topDir, ['reset', '--quiet', '--hard']);
    expect(await checkpoint(ws, { stageId: 's', attempt: 1 })).toBeNull();
  });

  it('a stage that staged its change with `git add` itself (add -A then has nothing to add) still gets a checkpoint', async () => {
    const { repo, ws } = await opened();
    expect(await checkpoint(ws, { stageId: 'noop', attempt: 1 })).toBeNull();
    writeFiles(ws.topDir, { 'README.md': 'staged by the stage\n' });
    gitSync(ws.topDir, ['add', 'README.md']);
    const made = await checkpoint(ws, { stageId: 'staged', attempt: 1 });
    expect(made?.files.map((file) => file.path)).toEqual(['README.md']);
    expect(filesOf(repo, ws.workspace.branch).get('README.md')).toBe('staged by the stage\n');
    gitSync(ws.topDir, ['rm', '--quiet', '--cached', 'README.md']);
    writeFiles(ws.topDir, { 'README.md': 'staged by the stage\n' });
    expect(await checkpoint(ws, { stageId: 'unstaged-then-same', attempt: 1 })).toBeNull();
  });

  it('an identity git would tidy (trailing dot, spaces) is written as git writes it', async () => {
    const { repo, ws } = await opened();
    writeFiles(ws.topDir, { 'a.txt': 'a\n' });
    await checkpoint(ws, { stageId: 's', attempt: 1, identity: { name: ' Ana B. ', email: 'ana@example.com' } });
    writeFiles(ws.topDir, { 'b.txt': 'b\n' });
    await checkpoint(ws, {
      stageId: 't',
      attempt: 1,
      identity: { name: 'Ana B', email: 'ana@example.com' },
      date: new Date('2026-01-02T03:04:05Z'),
    });
    const log = gitSync(repo, ['log', '-2', '--format=%an <%ae> %cn %ad|%s', '--date=unix', ws.workspace.branch]).trim().split('\n');
    expect(log).toEqual([
      'Ana B <ana@example.com> Ana B 1767323045|weft: t@1',
      expect.stringMatching(/^Ana B <ana@example.com> Ana B \d+\|weft: s@1$/),
    ]);
    expect(gitSync(repo, ['fsck', '--no-progress', '--strict'])).not.toMatch(/error|warning/i);
  });

  it('a stage that packed the refs (HEAD no longer a loose ref file) still gets its checkpoint, from git itself', async () => {
    const { repo, ws } = await opened();
    gitSync(ws.topDir, ['pack-refs', '--all']);
    writeFiles(ws.topDir, { 'packed.txt': 'p\n' });
    const made = await checkpoint(ws, { stageId: 's', attempt: 1 });
    expect(made?.files.map((file) => file.path)).toEqual(['packed.txt']);
    expect(gitSync(repo, ['rev-parse', ws.workspace.branch]).trim()).toBe(made?.commit);
    expect(await checkpoint(ws, { stageId: 't', attempt: 1 })).toBeNull();
  });

  it('leaves the user checkout untouched', async () => {
    const { repo, ws } = await opened();
    const before = readFileSync(join(repo, 'README.md'), 'utf8');
    writeFiles(ws.topDir, { 'README.md': 'changed by the run\n' });
    await checkpoint(ws, { stageId: 's', attempt: 1 });
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe(before);
    expect(gitSync(repo, ['status', '--porcelain'])).toBe('');
  });
});
