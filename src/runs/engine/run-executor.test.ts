import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngineKit, finishedStages, runToEnd, statusChanges, type EngineKit } from '../../../test/kits/engine-kit.js';

let kit: EngineKit;
beforeEach(async () => {
  kit = await createEngineKit();
});
afterEach(async () => {
  await kit.close();
});

function runWorkflow(toml: string, request: { inputs?: Record<string, unknown> } = {}) {
  return runToEnd(kit, toml, request);
}

describe('RunExecutor', () => {
  it('runs command stages in order, passing outputs through templates', async () => {
    const { run, events } = await runWorkflow(`
[inputs.who]
default = "world"
[nodes.greet]
kind = "command"
run = "echo hello"
next = "shout"
[nodes.shout]
kind = "command"
run = "echo '{{ stages.greet.output }} {{ inputs.who }}' | tr a-z A-Z"
`);
    expect(run.status).toBe('succeeded');
    expect(statusChanges(events)).toEqual(['queued', 'starting', 'running', 'succeeded']);
    expect(finishedStages(events)).toEqual([
      ['greet@1', 'succeeded'],
      ['shout@1', 'succeeded'],
    ]);
    expect(events.find((event) => event.stageId === 'shout@1' && event.type === 'stage-finished')?.payload.output).toBe('HELLO WORLD');
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  });

  it('picks the matching edge by exit code, highest weight first, with a fallback', async () => {
    const { run, events } = await runWorkflow(`
[nodes.check]
kind = "command"
run = "exit 3"
[[nodes.check.edges]]
to = "three"
when = "exit_code == 3"
weight = 1
[[nodes.check.edges]]
to = "nonzero"
when = "exit_code != 0"
weight = 5
[[nodes.check.edges]]
to = "ok"
[nodes.three]
kind = "command"
run = "true"
[nodes.nonzero]
kind = "command"
run = "true"
[nodes.ok]
kind = "command"
run = "true"
`);
    expect(run.status).toBe('succeeded');
    expect(finishedStages(events)).toEqual([
      ['check@1', 'failed'],
      ['nonzero@1', 'succeeded'],
    ]);
  });

  it('routes a branch on the status, exit code and answer of the stage that led to it', async () => {
    const { run, events } = await runWorkflow(`
[nodes.probe]
kind = "command"
run = "exit 4"
[[nodes.probe.edges]]
to = "route"
when = "status == 'failed'"
[nodes.route]
kind = "branch"
[[nodes.route.edges]]
to = "recover"
when = "status == 'failed' && exit_code == 4"
[[nodes.route.edges]]
to = "normal"
[nodes.recover]
kind = "command"
run = "echo recovered"
[nodes.normal]
kind = "command"
run = "echo normal"
`);
    expect(run.status).toBe('succeeded');
    expect(finishedStages(events)).toEqual([
      ['probe@1', 'failed'],
      ['route@1', 'succeeded'],
      ['recover@1', 'succeeded'],
    ]);
  });

  it('fails the run when a stage with a plain next fails, naming the stage and its error', async () => {
    const { run, events } = await runWorkflow(`
[nodes.build]
kind = "command"
run = "echo compiling; echo 'error: missing semicolon' >&2; exit 2"
next = "ship"
[nodes.ship]
kind = "command"
run = "touch shipped"
`);
    expect(run.status).toBe('failed');
    expect(run.reason).toBe("stage 'build' failed: error: missing semicolon");
    expect(finishedStages(events)).toEqual([['build@1', 'failed']]);
    expect(existsSync(join(kit.dir, 'shipped'))).toBe(false);
  });

  it('retries with backoff as new attempts and goes on when one succeeds', async () => {
    const { run, events } = await runWorkflow(`
[nodes.flaky]
kind = "command"
run = "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; test $n -ge 3"
retry = { attempts = 4, backoff = "20ms", factor = 2.0 }
`);
    expect(run.status).toBe('succeeded');
    expect(finishedStages(events)).toEqual([
      ['flaky@1', 'failed'],
      ['flaky@2', 'failed'],
      ['flaky@3', 'succeeded'],
    ]);
    // Backoff 20 ms, then 40 ms: the gaps between starts grow with the factor.
    const starts = events.filter((event) => event.type === 'stage-started').map((event) => event.at);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(20);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(40);
  });

  it('stops retrying after the last attempt', async () => {
    const { run, events } = await runWorkflow(`
[nodes.never]
kind = "command"
run = "exit 1"
retry = { attempts = 2, backoff = "10ms" }
`);
    expect(run.status).toBe('failed');
    expect(finishedStages(events)).toEqual([
      ['never@1', 'failed'],
      ['never@2', 'failed'],
    ]);
  });

  it('times out a command stage and kills it', async () => {
    const { run } = await runWorkflow(`
[nodes.slow]
kind = "command"
run = "sleep 30"
timeout = "300ms"
`);
    expect(run.status).toBe('failed');
    expect(run.reason).toBe("stage 'slow' failed: Command timed out after 300ms");
  });

  it('fans out to parallel branches and joins them', async () => {
    const { run, events } = await runWorkflow(`
[nodes.fan]
kind = "parallel"
branches = ["left", "right"]
join = "meet"
[nodes.left]
kind = "command"
run = "echo L"
next = "meet"
[nodes.right]
kind = "command"
run = "echo R"
next = "meet"
[nodes.meet]
kind = "join"
next = "after"
[nodes.after]
kind = "command"
run = "echo '{{ stages.left.output }}{{ stages.right.output }}'"
`);
    expect(run.status).toBe('succeeded');
    const stages = finishedStages(events).map(([id]) => id);
    expect(stages[0]).toBe('fan@1');
    expect(stages.slice(1, 3).sort()).toEqual(['left@1', 'right@1']);
    expect(stages.slice(3)).toEqual(['meet@1', 'after@1']);
    expect(events.find((event) => event.stageId === 'meet@1' && event.type === 'stage-finished')?.payload.output).toEqual({
      left: 'L',
      right: 'R',
    });
    expect(events.find((event) => event.stageId === 'after@1' && event.type === 'stage-finished')?.payload.output).toBe('LR');
  });

  it('fails the run, naming the file, when its workflow cannot be loaded any more', async () => {
    const file = await kit.write('wf.toml', '[nodes.only]\nkind = "command"\nrun = "true"\n');
    const created = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
    await kit.write('wf.toml', '[nodes.only\nkind = ');
    await kit.runUntilIdle();
    const run = await kit.service.get(created.id);
    expect(run.status).toBe('failed');
    expect(run.reason).toContain(`workflow ${file} cannot be loaded: `);
    expect(statusChanges(await kit.events(created.id))).toEqual(['queued', 'starting', 'failed']);
  });
});
