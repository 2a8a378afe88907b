/**
 * Steering runs from a second CLI invocation while a runner executes them: answering a
 * human question, cancelling a command (its whole process tree dies), and bad input that
 * must be refused without touching the store; a reader that closes its end of stdout; run ids
 * typed as prefixes or `@last`.
 */
import { spawn } from 'node:child_process';
import { symlink } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { WEFT_BIN } from './helpers/run-cli.js';
import { isAlive, jsonLines, readPid, until, type EventJson, type RunJson, sandboxPerTest } from './fixtures/workflows-e2e/harness.js';

// Real processes on a possibly busy machine: more time than the default 30 s.
vi.setConfig({ testTimeout: 60_000 });

const box = sandboxPerTest();

/** A ULID that no run or question has. */
const UNKNOWN_ID = '01ARZ3NDEKTSV4RRFFQ69G5FAV';

describe('weft answer', () => {
  it('answers the human question of examples/tour/review.toml while the run is blocked; the branch follows the answer', async () => {
    const tour = await box.tour();
    const detached = await box.cli(['--cwd', tour, 'run', 'review.toml', '--detach', '--input', 'version=2.0.0']);
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();

    const blocked = await until('the review question', async () => {
      const run = await box.inspect(id);
      return run.status === 'blocked' && run.pendingQuestions!.length > 0 ? run : undefined;
    });
    const question = blocked.pendingQuestions![0]!;
    expect(question).toMatchObject({
      kind: 'yes_no',
      stageId: 'review@1',
      prompt: 'Publish these notes? Release notes for 2.0.0: faster startup, fewer surprises.',
    });

    // A question that does not exist is refused, naming the pending one; so is an answer that is not yes or no.
    const [wrong, notYesNo] = await Promise.all([
      box.cli(['answer', id, UNKNOWN_ID, 'yes']),
      box.cli(['answer', id, question.id, 'perhaps']),
    ]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`Run ${id} has no question ${UNKNOWN_ID}. Pending: ${question.id} (Publish these notes?`);
    expect(notYesNo.code).toBe(2);
    expect(notYesNo.stderr).toContain('perhaps');
    const after = await box.inspect(id);
    expect({ ...after, lease: undefined }).toEqual({ ...blocked, lease: undefined }); // only the heartbeat moved

    // Following only the stage ends while blocked: it prints them as they come and returns when the run ends.
    const following = box.cli(['events', id, '--follow', '--type', 'stage-finished']);
    const answered = await box.cli(['answer', id, question.id, 'yes']);
    expect(answered).toMatchObject({ code: 0, stdout: `Answered ${question.id}: true\n` });
    expect((await box.cli(['wait', id])).code).toBe(0);
    const followed = await following;
    expect(followed.code, followed.stderr).toBe(0);
    expect(jsonLines<EventJson>(followed.stdout).map((event) => event.stageId)).toEqual(['draft@1', 'review@1', 'decide@1', 'publish@1']);
    const finished = await box.events(id, '--type', 'stage-finished');
    expect(finished.map((event) => event.stageId)).toEqual(['draft@1', 'review@1', 'decide@1', 'publish@1']);
    expect(finished.at(-1)!.payload.output).toBe('published: Release notes for 2.0.0: faster startup, fewer surprises.');
  });
});

describe('weft cancel', () => {
  it('kills the running command and its children, and the run ends cancelled', async () => {
    const detached = await box.cli(['run', 'sleep.toml', '--detach']);
    const id = detached.stdout.trim();
    const pids = await until('the pid files of the command', async () => {
      const [shell, sleeper] = await Promise.all([readPid(join(box.ws, 'shell.pid')), readPid(join(box.ws, 'sleep.pid'))]);
      return shell !== undefined && sleeper !== undefined ? [shell, sleeper] : undefined;
    });
    expect(await Promise.all(pids.map(isAlive))).toEqual([true, true]);

    const cancelled = await box.cli(['cancel', id, '--reason', 'enough']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toContain(`Cancel requested for run ${id}`);
    const waited = await box.cli(['wait', id, '--json']);
    expect(waited.code).toBe(1);
    expect(JSON.parse(waited.stdout)).toEqual({ timedOut: false, runs: [{ id, status: 'cancelled', reason: 'enough' }] });
    // The stage's whole process group is killed, the background sleep included.
    await until(
      'the command and its child to exit',
      async () => ((await Promise.all(pids.map(isAlive))).some(Boolean) ? undefined : true),
      5000,
    );
    const finished = await box.events(id, '--type', 'stage-finished');
    expect(finished.map((event) => [event.stageId, event.payload.status])).toEqual([['nap@1', 'cancelled']]);
  });
});

describe('bad input', () => {
  it('is refused with exit 2 (usage) or 1 (wrong state) and a message that says why; the store is unchanged', async () => {
    const created = await box.cli(['create', 'ok.toml', '--json']);
    const run = JSON.parse(created.stdout) as RunJson;
    const snapshot = async () => (await box.cli(['ps', '--all', '--json'])).stdout;
    const before = await snapshot();

    const [unknown, traversal, traversalAnswer, noQuestion, notPending, notFinished, undeclared, missingFile, badStatus] =
      await Promise.all([
        box.cli(['inspect', UNKNOWN_ID]),
        box.cli(['inspect', '../../etc/passwd']),
        box.cli(['answer', run.id, '../../etc/passwd', 'yes']),
        box.cli(['answer', run.id, UNKNOWN_ID, 'yes']),
        box.cli(['approve', run.id]),
        box.cli(['rm', run.id]),
        box.cli(['run', 'ok.toml', '--input', 'nope=1']),
        box.cli(['run', 'missing.toml']),
        box.cli(['ps', '--status', 'done']),
      ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`weft: No run with id ${UNKNOWN_ID}. List runs with 'weft ps --all'.\n`);
    for (const result of [traversal, traversalAnswer]) {
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^weft: Invalid (run|question) id '\.\.\/\.\.\/etc\/passwd': expected a 26-character ULID/);
    }
    expect(noQuestion.code).toBe(2);
    expect(noQuestion.stderr).toBe(`weft: Run ${run.id} has no question ${UNKNOWN_ID}. It has no pending questions.\n`);
    expect(notPending.code).toBe(1);
    expect(notPending.stderr).toBe(`weft: Run ${run.id} is submitted; it can be approved only when pending.\n`);
    expect(notFinished.code).toBe(1);
    expect(notFinished.stderr).toBe(`weft: Run ${run.id} is submitted; it can be removed only when succeeded or failed or cancelled.\n`);
    expect(undeclared.code).toBe(2);
    expect(undeclared.stderr).toBe(
      `weft: Invalid inputs for ${join(box.ws, 'ok.toml')}: input 'nope' is not declared by workflow 'ok' (declared: who).\n`,
    );
    expect(missingFile.code).toBe(2);
    expect(missingFile.stderr).toBe(`weft: Workflow file '${join(box.ws, 'missing.toml')}' does not exist — check the path.\n`);
    expect(badStatus.code).toBe(2);
    expect(badStatus.stderr).toContain("--status 'done' is not a run status");

    expect(await snapshot()).toBe(before);
    expect(JSON.parse(before)).toMatchObject([{ id: run.id, status: 'submitted' }]);
  });

  it('refuses a --goal-file that is a symlink leading out of the working directory, before storing anything', async () => {
    await symlink('/proc/self/environ', join(box.ws, 'goal.md'));
    const result = await box.cli(['create', 'ok.toml', '--goal-file', 'goal.md'], { WEFT_PROBE_TOKEN: 'probe-value-1234' });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `weft: goal file 'goal.md' is outside the run's directory ${box.ws} (a symlink counts by where it points); use a file inside that directory.\n`,
    );
    expect((await box.cli(['ps', '--all', '--json'])).stdout).not.toContain('probe-value-1234');
  });
});

/**
 * Runs weft, with the reading end of its stdout closed before weft writes anything when
 * `closeStdout` is set; killed after 20 s, so a hang fails the test instead of spinning on.
 */
function weft(args: string[], closeStdout = false): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WEFT_BIN, '--cwd', box.ws, ...args], {
      cwd: box.ws,
      env: { ...process.env, ...box.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 20_000,
    });
    if (closeStdout) child.stdout.destroy();
    else child.stdout.resume();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

describe('a closed stdout (weft ps | head -1)', () => {
  it('ends ps, events, logs and help quietly with exit 0', async () => {
    const ran = await box.cli(['run', 'ok.toml']);
    expect(ran.code, ran.stderr).toBe(0);
    const id = /^run (\S+) · ok · /m.exec(ran.stderr)?.[1];
    expect(id).toBeDefined();
    const commands = [['ps'], ['ps', '--json'], ['events', id!], ['logs', id!], ['--help'], ['mcp', 'start', '--help']];
    const results = await Promise.all(commands.map((args) => weft(args, true)));
    expect(results).toEqual(commands.map(() => ({ code: 0, signal: null, stderr: '' })));
  });
});

describe('an unusable storage dir', () => {
  it('fails at once with exit 2, naming the path and the reason', async () => {
    const file = join(box.ws, 'ok.toml');
    const fix = 'Point --storage-dir or WEFT_HOME at a directory you can write to.';
    const results = await Promise.all([
      weft(['--storage-dir', '/proc/weft-x', 'ps']),
      weft(['--storage-dir', file, 'ps']),
      weft(['--storage-dir', '/proc/weft-x', 'mcp', 'start']),
    ]);
    expect(results).toEqual([
      {
        code: 2,
        signal: null,
        stderr: `weft: Storage dir /proc/weft-x cannot be used: cannot create /proc/weft-x: no such file or directory (ENOENT). ${fix}\n`,
      },
      { code: 2, signal: null, stderr: `weft: Storage dir ${file} cannot be used: it is a file, not a directory. ${fix}\n` },
      {
        code: 2,
        signal: null,
        stderr: `weft: Storage dir /proc/weft-x cannot be used: cannot create /proc/weft-x: no such file or directory (ENOENT). ${fix}\n`,
      },
    ]);
  });
});

/** Starts the CLI and resolves once `stream` shows `ready`; the caller then signals it. */
async function startCli(args: string[], stream: 'stdout' | 'stderr', ready: RegExp) {
  const child = spawn(process.execPath, [WEFT_BIN, '--cwd', box.ws, ...args], {
    cwd: box.ws,
    env: { ...process.env, ...box.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  await new Promise<void>((seen, failed) => {
    for (const name of ['stdout', 'stderr'] as const) {
      child[name].setEncoding('utf8').on('data', (chunk: string) => {
        output[name] += chunk;
        if (name === stream && ready.test(output[name])) seen();
      });
    }
    void exited.then(() => failed(new Error(`weft ${args.join(' ')} exited before ${String(ready)}: ${output.stderr}`)));
  });
  return { child, output, exited };
}

describe('Ctrl-C while following', () => {
  it('exits 130 from weft run and from logs --follow; the run goes on', async () => {
    const run = await startCli(['run', 'sleep.toml'], 'stderr', /^run (\S+) · sleep · /);
    const id = /^run (\S+)/.exec(run.output.stderr)![1]!;
    run.child.kill('SIGINT');
    expect(await run.exited).toEqual([130, null]);
    expect(run.output.stderr).toContain(`Stopped following; run ${id} goes on`);

    const logs = await startCli(['logs', id, '--follow'], 'stdout', /\n/);
    logs.child.kill('SIGINT');
    expect(await logs.exited).toEqual([130, null]);
    expect((await box.inspect(id)).status).not.toMatch(/^(succeeded|failed|cancelled)$/);
    expect((await box.cli(['cancel', id])).code).toBe(0);
  });
});

function commonPrefix(ids: string[]): string {
  let length = 0;
  while (ids.every((id) => id[length] === ids[0]![length]) && length < ids[0]!.length) length += 1;
  return ids[0]!.slice(0, length);
}

/** The shortest prefix of `id` that no other id shares. */
function uniquePrefix(id: string, others: string[]): string {
  for (let length = 1; ; length += 1) if (!others.some((other) => other.startsWith(id.slice(0, length)))) return id.slice(0, length);
}

describe('run ids', () => {
  it('accept a unique prefix in any case and @last; an ambiguous prefix is refused listing the runs it matches', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const created = await box.cli(['create', 'ok.toml', '--json']);
      expect(created.code, created.stderr).toBe(0);
      ids.push((JSON.parse(created.stdout) as RunJson).id);
    }
    const newest = ids.at(-1)!;
    const oldest = ids[0]!;

    const last = await box.cli(['inspect', '@last', '--json']);
    expect(last.code, last.stderr).toBe(0);
    expect((JSON.parse(last.stdout) as RunJson).id).toBe(newest);

    const prefix = uniquePrefix(oldest, ids.slice(1)).toLowerCase();
    const byPrefix = await box.cli(['inspect', prefix, '--json']);
    expect(byPrefix.code, byPrefix.stderr).toBe(0);
    expect((JSON.parse(byPrefix.stdout) as RunJson).id).toBe(oldest);

    // Steering acts on, and echoes, the whole id rather than what was typed.
    const notFinished = await box.cli(['archive', prefix]);
    expect(notFinished.code).toBe(1);
    expect(notFinished.stderr).toContain(oldest);
    const approved = await box.cli(['start', '@last']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(newest);

    const shared = commonPrefix(ids);
    const ambiguous = await box.cli(['inspect', shared.toLowerCase()]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toBe(
      `weft: Run id prefix ${shared} matches 3 runs: ${[...ids].reverse().join(', ')}. Give more characters.\n`,
    );

    const none = await box.cli(['logs', 'zzzz']);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`weft: No run id starts with ZZZZ. List runs with 'weft ps --all'.\n`);
  });
});
