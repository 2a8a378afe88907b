/**
 * Per-run workspaces end to end: the real CLI and runner processes, real git on repositories
 * made here. Two runs of one workflow started together each read their own edit and leave
 * the user's checkout as it was; a run works in the same subfolder of its worktree; outside
 * git (or with `--workspace in-place`) runs work in the directory itself, as before.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { sandboxPerTest, type EventJson } from './fixtures/workflows-e2e/harness.js';

vi.setConfig({ testTimeout: 90_000 });

const box = sandboxPerTest();

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  }).trim();
}

/** The workflow: write, wait until both runs have written (a marker each, no timing), check. */
const EDIT_WORKFLOW = `[workflow]
name = "edit"
start = "write"

[inputs.tag]
required = true

[inputs.markers]
required = true

[nodes.write]
kind = "command"
run = "echo 'edited by {{ inputs.tag }}' > app.txt"
next = "wait"

[nodes.wait]
kind = "command"
run = "touch '{{ inputs.markers }}/{{ inputs.tag }}'; while [ ! -e '{{ inputs.markers }}/A' ] || [ ! -e '{{ inputs.markers }}/B' ]; do sleep 0.05; done"
next = "check"

[nodes.check]
kind = "command"
run = "cat app.txt"
`;

async function repoWith(files: Record<string, string>): Promise<string> {
  const repo = box.ws;
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(repo, name, '..'), { recursive: true });
    await writeFile(join(repo, name), text);
  }
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'start');
  return repo;
}

function outputOf(events: EventJson[], stageId: string): unknown {
  return events.find((event) => event.type === 'stage-finished' && event.stageId === stageId)?.payload.output;
}

describe('per-run workspaces', () => {
  it('gives two concurrent runs a worktree each: each reads its own edit, and the checkout is unchanged', async () => {
    const repo = await repoWith({ 'edit.toml': EDIT_WORKFLOW, 'app.txt': 'original\n' });
    const markers = join(box.base, 'markers');
    await mkdir(markers);
    const started = await Promise.all(
      ['A', 'B'].map((tag) => box.cli(['run', 'edit.toml', '--detach', '--input', `tag=${tag}`, '--input', `markers=${markers}`])),
    );
    const [a, b] = started.map((result) => {
      expect(result.code, result.stderr).toBe(0);
      return result.stdout.trim();
    }) as [string, string];
    const waited = await box.cli(['wait', a, b, '--timeout', '60']);
    expect(waited.code, waited.stdout + waited.stderr).toBe(0);
    expect(outputOf(await box.events(a), 'check@1')).toBe('edited by A');
    expect(outputOf(await box.events(b), 'check@1')).toBe('edited by B');
    // The user's checkout: untouched.
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(await readFile(join(repo, 'app.txt'), 'utf8')).toBe('original\n');
    // Each run's branch holds one checkpoint per stage that changed files, with its trailers.
    for (const [id, tag] of [
      [a, 'A'],
      [b, 'B'],
    ] as const) {
      expect(git(repo, 'show', `weft/runs/${id}:app.txt`)).toBe(`edited by ${tag}`);
      const log = git(
        repo,
        'log',
        '--format=%s|%(trailers:key=Weft-Run,valueonly,separator=)|%(trailers:key=Weft-Stage,valueonly,separator=)',
        `main..weft/runs/${id}`,
      );
      expect(log.split('\n')).toEqual([`weft: write@1|${id}|write`]);
      const checkpoints = (await box.events(id)).filter((event) => event.type === 'checkpoint-created');
      expect(
        checkpoints.map((event) => [event.stageId, event.payload.filesChanged, event.payload.linesAdded, event.payload.linesRemoved]),
      ).toEqual([['write@1', 1, 1, 1]]);
      const run = await box.inspect(id);
      expect((run as unknown as { workspace: { mode: string; branch: string } }).workspace).toMatchObject({
        mode: 'worktree',
        branch: `weft/runs/${id}`,
      });
    }
  });

  it('works in the same subfolder of its worktree; says where on the first line of weft run', async () => {
    const repo = await repoWith({
      'pkg/where.toml': '[workflow]\nname = "where"\nstart = "pwd"\n[nodes.pwd]\nkind = "command"\nrun = "pwd; echo made > made.txt"\n',
    });
    const result = await box.cli(['--cwd', join(repo, 'pkg'), 'run', 'where.toml']);
    expect(result.code, result.stderr).toBe(0);
    const id = /^run (\S+) · where · /m.exec(result.stderr)?.[1] as string;
    const workDir = join(box.home, 'workspaces', id, 'pkg');
    expect(result.stderr.split('\n')[0]).toBe(`run ${id} · where · working in ${workDir} on branch weft/runs/${id}`);
    expect(outputOf(await box.events(id), 'pwd@1')).toBe(`${workDir}\n`.trim());
    expect(git(repo, 'show', `weft/runs/${id}:pkg/made.txt`)).toBe('made');
    expect(existsSync(join(repo, 'pkg', 'made.txt'))).toBe(false);
  });

  it('works in place outside git, and when asked to with --workspace in-place', async () => {
    const flow = '[workflow]\nname = "here"\nstart = "touch"\n[nodes.touch]\nkind = "command"\nrun = "echo here > here.txt"\n';
    await writeFile(join(box.ws, 'here.toml'), flow);
    const outside = await box.cli(['run', 'here.toml']);
    expect(outside.code, outside.stderr).toBe(0);
    expect(outside.stderr.split('\n')[0]?.replace(/^run \S+ /, 'run <id> ')).toBe(`run <id> · here · working in place in ${box.ws}`);
    expect(await readFile(join(box.ws, 'here.txt'), 'utf8')).toBe('here\n');
    await repoWith({});
    const inPlace = await box.cli(['run', 'here.toml', '--workspace', 'in-place']);
    expect(inPlace.code, inPlace.stderr).toBe(0);
    const id = /^run (\S+) · here · /m.exec(inPlace.stderr)?.[1] as string;
    expect((await box.events(id)).some((event) => event.type === 'checkpoint-created')).toBe(false);
    expect(git(box.ws, 'branch', '--list', 'weft/*')).toBe('');
  });

  it("gives a child run its own branch from the parent's current checkpoint", async () => {
    const parent =
      '[workflow]\nname = "parent"\nstart = "make"\n[nodes.make]\nkind = "command"\nrun = "echo from-parent > parent.txt"\nnext = "kid"\n[nodes.kid]\nkind = "child"\nworkflow = "kid.toml"\n';
    const kid =
      '[workflow]\nname = "kid"\nstart = "look"\n[nodes.look]\nkind = "command"\nrun = "cat parent.txt > seen.txt; cat parent.txt"\n';
    const repo = await repoWith({ 'parent.toml': parent, 'kid.toml': kid });
    const result = await box.cli(['run', 'parent.toml']);
    expect(result.code, result.stderr).toBe(0);
    const id = /^run (\S+) · parent · /m.exec(result.stderr)?.[1] as string;
    const childId = String((await box.events(id)).find((event) => event.type === 'child-run-created')?.payload.childId);
    expect(outputOf(await box.events(childId), 'look@1')).toBe('from-parent');
    expect(git(repo, 'show', `weft/runs/${childId}:seen.txt`)).toBe('from-parent');
    expect(git(repo, 'merge-base', '--is-ancestor', `weft/runs/${id}`, `weft/runs/${childId}`)).toBe('');
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('leaves a dirty tree out by default, and carries it in as the first checkpoint with --include-uncommitted', async () => {
    const repo = await repoWith({
      'see.toml':
        '[workflow]\nname = "see"\nstart = "look"\n[nodes.look]\nkind = "command"\nrun = "cat draft.txt 2>/dev/null || echo none"\n',
      'draft.txt': 'committed\n',
    });
    await writeFile(join(repo, 'draft.txt'), 'uncommitted\n');
    const plain = await box.cli(['run', 'see.toml']);
    const plainId = /^run (\S+) · see · /m.exec(plain.stderr)?.[1] as string;
    expect(outputOf(await box.events(plainId), 'look@1')).toBe('committed');
    const carried = await box.cli(['run', 'see.toml', '--include-uncommitted']);
    expect(carried.code, carried.stderr).toBe(0);
    const id = /^run (\S+) · see · /m.exec(carried.stderr)?.[1] as string;
    const events = await box.events(id);
    expect(outputOf(events, 'look@1')).toBe('uncommitted');
    const first = events.find((event) => event.type === 'checkpoint-created');
    expect(first?.stageId).toBeUndefined();
    expect(first).toMatchObject({
      payload: { filesChanged: 1, files: [{ path: 'draft.txt', status: 'M', added: 1, removed: 1, binary: false }] },
    });
    // The creator's tree and index: exactly as they were.
    expect(git(repo, 'status', '--porcelain')).toBe('M draft.txt');
  });

  it('weft doctor reports a worktree whose run is gone, and the next worker start removes it', async () => {
    const stale = join(box.home, 'workspaces', '01JD3T7Q6V9Y0X2R8K4M5N1P7S');
    await mkdir(join(stale, 'src'), { recursive: true });
    const doctor = await box.cli(['doctor', '--json']);
    const checks = JSON.parse(doctor.stdout) as { name: string; level: string; detail: string }[];
    expect(checks.find((check) => check.name === 'workspaces')).toMatchObject({
      level: 'warn',
      detail: `1 stale worktree whose run is gone: ${stale} (other)`,
    });
    const worker = await box.cli(['worker', '--until-idle']);
    expect(worker.code, worker.stderr).toBe(0);
    expect(existsSync(stale)).toBe(false);
  });

  it('a remote that refuses the checkpoint push fails the stage with its message; the checkpoint stays in the local repository', async () => {
    const remote = join(box.base, 'strict.git');
    git(box.base, 'init', '-q', '--bare', remote);
    // The run branch's creation is let through; every checkpoint pushed onto it is refused.
    const hook =
      '#!/bin/sh\nwhile read old new ref; do\n  case "$old" in *[!0]*) echo "policy: checkpoints on $ref need review" >&2; exit 1;; esac\ndone\n';
    await writeFile(join(remote, 'hooks', 'pre-receive'), hook, { mode: 0o755 });
    const repo = await repoWith({
      'push.toml': `[workflow]\nname = "push"\nstart = "write"\n[run.workspace]\nremote = "${remote}"\n[nodes.write]\nkind = "command"\nrun = "echo valuable > work.txt"\nnext = "after"\n[nodes.after]\nkind = "command"\nrun = "true"\n`,
    });
    const result = await box.cli(['run', 'push.toml']);
    expect(result.code, result.stderr).toBe(1);
    const id = /^run (\S+) · push · /m.exec(result.stderr)?.[1] as string;
    const events = await box.events(id);
    const finished = events.filter((event) => event.type === 'stage-finished');
    expect(finished.map((event) => event.stageId)).toEqual(['write@1']);
    expect(finished[0]?.payload).toMatchObject({ status: 'failed', errorCode: 'WORKSPACE_PUSH_REFUSED' });
    expect(String(finished[0]?.payload.error)).toContain(`policy: checkpoints on refs/heads/weft/runs/${id} need review`);
    expect(String(finished[0]?.payload.error)).toContain('Nothing is lost');
    // No checkpoint is recorded (the log never names a commit the remote lacks), but the commit is kept here.
    expect(events.some((event) => event.type === 'checkpoint-created')).toBe(false);
    expect(git(repo, 'show', `weft/runs/${id}:work.txt`)).toBe('valuable');
    expect(git(repo, 'log', '-1', '--format=%(trailers:key=Weft-Stage,valueonly)', `weft/runs/${id}`)).toBe('write');
    expect(git(remote, 'rev-parse', `weft/runs/${id}`)).toBe(git(repo, 'rev-parse', 'main'));
    const run = await box.inspect(id);
    expect(run).toMatchObject({ status: 'failed' });
    const text = await box.cli(['inspect', id]);
    expect(text.stdout).toContain('policy: checkpoints on');
  });

  it("parallel branches share the working copy: a branch's checkpoint holds what its running sibling wrote so far, the sibling's the rest", async () => {
    // `a` ends once `b` has written b1.txt; `b` writes b2.txt only after a's checkpoint is on the branch.
    const flow = `[workflow]\nname = "fan"\nstart = "fan"\n[nodes.fan]\nkind = "parallel"\nbranches = ["a", "b"]\njoin = "done"\n[nodes.a]\nkind = "command"\nrun = "until [ -e b1.txt ]; do sleep 0.05; done; echo a > a.txt"\nnext = "done"\n[nodes.b]\nkind = "command"\nrun = "echo 1 > b1.txt; until git log -1 --format=%s | grep -q 'a@1'; do sleep 0.05; done; echo 2 > b2.txt"\nnext = "done"\n[nodes.done]\nkind = "join"\nnext = "after"\n[nodes.after]\nkind = "command"\nrun = "cat a.txt b1.txt b2.txt"\n`;
    const repo = await repoWith({ 'fan.toml': flow });
    const result = await box.cli(['run', 'fan.toml']);
    expect(result.code, result.stderr).toBe(0);
    const id = /^run (\S+) · fan · /m.exec(result.stderr)?.[1] as string;
    const events = await box.events(id);
    const files = (stageId: string) =>
      (
        events.find((event) => event.type === 'checkpoint-created' && event.stageId === stageId)?.payload.files as
          { path: string }[] | undefined
      )?.map((file) => file.path);
    expect(files('a@1')).toEqual(['a.txt', 'b1.txt']);
    expect(files('b@1')).toEqual(['b2.txt']);
    expect(outputOf(events, 'after@1')).toBe('a\n1\n2');
    expect(git(repo, 'log', '--format=%s', `weft/runs/${id}`, '^main')).toBe('weft: b@1\nweft: a@1');
  });

  it('refuses a bad mode in the workflow, naming the file, the field and the fix', async () => {
    await repoWith({
      'bad.toml': '[workflow]\nname = "bad"\nstart = "a"\n[run.workspace]\nmode = "worktrees"\n[nodes.a]\nkind = "command"\nrun = "true"\n',
    });
    const result = await box.cli(['run', 'bad.toml']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad\.toml:5: \[run\.workspace\]: 'mode' must be one of worktree, in-place, clone, got "worktrees"/);
  });
});
