/**
 * Looking at, going back on and bringing home a run's files through the CLI: `weft diff`
 * (whole run, one stage, `--stat`), `weft rewind` and `weft fork` (every earlier commit stays
 * reachable), `weft merge` into the user's branch, and `weft rm` taking the worktree and
 * branch with the run. Real git, real runner processes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { sandboxPerTest, type EventJson } from './fixtures/workflows-e2e/harness.js';

vi.setConfig({ testTimeout: 120_000 });

const box = sandboxPerTest();

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  }).trim();
}

/** `two` fails until the flag file exists: the run fails once, then is rewound or forked. */
const FLOW = `[workflow]
name = "steps"
start = "one"

[inputs.flag]
required = true

[inputs.word]
default = "two"

[nodes.one]
kind = "command"
run = "echo one > one.txt"
next = "two"

[nodes.two]
kind = "command"
run = "echo '{{ inputs.word }}' > two.txt; test -e '{{ inputs.flag }}'"
`;

async function repo(): Promise<string> {
  await writeFile(join(box.ws, 'steps.toml'), FLOW);
  await writeFile(join(box.ws, 'base.txt'), 'base\n');
  git(box.ws, 'init', '-q', '-b', 'main');
  git(box.ws, 'add', '-A');
  git(box.ws, 'commit', '-qm', 'start');
  return box.ws;
}

function idOf(stderr: string): string {
  return /^run (\S+) · steps · /m.exec(stderr)?.[1] as string;
}

async function cliOk(args: string[]): Promise<string> {
  const result = await box.cli(args);
  expect(result.code, `weft ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

function stageFinishes(events: EventJson[]): string[] {
  return events.filter((event) => event.type === 'stage-finished').map((event) => `${event.stageId} ${String(event.payload.status)}`);
}

describe('diff, rewind, fork, merge and rm of a run', () => {
  it('diffs a failed run, rewinds it to a stage, forks it with another input, merges it, removes it', async () => {
    const dir = await repo();
    const flag = join(box.base, 'flag');
    const failed = await box.cli(['run', 'steps.toml', '--input', `flag=${flag}`]);
    expect(failed.code).toBe(1);
    const id = idOf(failed.stderr);

    // The whole run, then one stage; the failed stage's files are checkpointed too (evidence).
    expect(await cliOk(['diff', id, '--stat'])).toBe('  A one.txt  +1 -0\n  A two.txt  +1 -0\n2 files changed, +2 -0\n');
    expect(await cliOk(['diff', id, '--stage', 'one', '--stat'])).toBe('  A one.txt  +1 -0\n1 file changed, +1 -0\n');
    expect(await cliOk(['diff', id, '--stage', 'two@1'])).toContain('+two');
    const failedTip = git(dir, 'rev-parse', `weft/runs/${id}`);

    // Rewind to `one`: two runs again (attempt 2) from one's checkpoint, and succeeds now.
    await writeFile(flag, '');
    expect(await cliOk(['rewind', id, '--to', 'one'])).toContain(`Rewound run ${id} to one; it runs on from there`);
    const waited = await box.cli(['wait', id, '--timeout', '60']);
    expect(waited.code, waited.stdout).toBe(0);
    const events = await box.events(id);
    expect(stageFinishes(events)).toEqual(['one@1 succeeded', 'two@1 failed', 'two@2 succeeded']);
    const rewound = events.find((event) => event.type === 'run-rewound');
    expect(rewound?.payload).toMatchObject({ toStage: 'one@1', abandonedCommit: failedTip, abandonedRef: `refs/weft/abandoned/${id}/1` });
    // Nothing destroyed: the failed attempt's checkpoint is still reachable from the kept ref.
    expect(git(dir, 'rev-parse', `refs/weft/abandoned/${id}/1`)).toBe(failedTip);
    expect(git(dir, 'log', '--format=%s', `weft/runs/${id}`, '^main')).toBe('weft: two@2\nweft: one@1');

    // Fork after `one` with another word: one counts as done (not run again), two runs with the new input.
    const forkOut = await cliOk(['fork', id, '--from', 'one', '--input', 'word=forked', '--json']);
    const fork = JSON.parse(forkOut) as { id: string; status: string };
    await cliOk(['approve', fork.id]);
    expect((await box.cli(['wait', fork.id, '--timeout', '60'])).code).toBe(0);
    expect(stageFinishes(await box.events(fork.id))).toEqual(['one@1 succeeded', 'two@1 succeeded']);
    expect(git(dir, 'show', `weft/runs/${fork.id}:two.txt`)).toBe('forked');
    const oneCheckpoint = (
      events.find((event) => event.type === 'checkpoint-created' && event.stageId === 'one@1')?.payload as { commit: string }
    ).commit;
    expect(git(dir, 'merge-base', `weft/runs/${fork.id}`, `weft/runs/${id}`)).toBe(oneCheckpoint);
    expect((await box.inspect(fork.id)) as unknown).toMatchObject({ origin: { runId: id, stageId: 'one@1', commit: oneCheckpoint } });
    expect((await box.events(id)).some((event) => event.type === 'run-forked' && event.payload.forkId === fork.id)).toBe(true);

    // Merge the rewound run into main (checked out here): a fast-forward, the checkout follows, nothing left dirty.
    expect(await cliOk(['merge', id])).toMatch(new RegExp(`^Merged run ${id} into main: fast-forwarded to [0-9a-f]{12}`));
    expect(await readFile(join(dir, 'two.txt'), 'utf8')).toBe('two\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');

    // rm takes the fork's worktree and branch; the merged run keeps its branch.
    const forkDir = join(box.home, 'workspaces', fork.id);
    expect(existsSync(forkDir)).toBe(true);
    await cliOk(['rm', fork.id]);
    expect(existsSync(forkDir)).toBe(false);
    expect(git(dir, 'branch', '--list', `weft/runs/${fork.id}`)).toBe('');
    await cliOk(['rm', id]);
    expect(existsSync(join(box.home, 'workspaces', id))).toBe(false);
    expect(git(dir, 'branch', '--list', `weft/runs/${id}`)).toBe(`weft/runs/${id}`);
  });

  it('says why a run that works in place has nothing to diff', async () => {
    await repo();
    const ran = await box.cli(['run', 'steps.toml', '--workspace', 'in-place', '--input', 'flag=/']);
    const id = idOf(ran.stderr);
    const diff = await box.cli(['diff', id]);
    expect(diff.code).not.toBe(0);
    expect(diff.stderr).toContain(`Run ${id} works in place (${box.ws}), without a run branch or checkpoints, so it cannot be diffed.`);
  });
});
