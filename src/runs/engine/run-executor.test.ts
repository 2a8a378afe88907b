import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngineKit, finishedStages, statusChanges, type EngineKit } from '../../../test/kits/engine-kit.js';

let kit: EngineKit;
beforeEach(async () => {
  kit = await createEngineKit();
});
afterEach(async () => {
  await kit.close();
});

async function runWorkflow(toml: string, request: { inputs?: Record<string, unknown> } = {}) {
  const file = await kit.write('wf.toml', toml);
  const run = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true, ...request });
  await kit.runUntilIdle();
  return { run: await kit.service.get(run.id), events: await kit.events(run.id) };
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
    expect(events.find((event) => event.stageId === 'meet@1' && event.type === 'stage-finished')?.payload.output).toEqual({ left: 'L', right: 'R' });
    expect(events.find((event) => event.stageId === 'after@1' && event.type === 'stage-finished')?.payload.output).toBe('LR');
  });

  it('blocks on a human question, then branches on the answer', async () => {
    const file = await kit.write('wf.toml', `
[nodes.ask]
kind = "human"
question = "Ship it?"
type = "yes_no"
next = "route"
[nodes.route]
kind = "branch"
[[nodes.route.edges]]
to = "ship"
when = "stages.ask.answer == true"
[[nodes.route.edges]]
to = "hold"
[nodes.ship]
kind = "command"
run = "echo shipping"
[nodes.hold]
kind = "command"
run = "echo holding"
`);
    const created = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
    const worker = kit.startWorker();
    try {
      const blocked = await kit.until(created.id, (run) => run.status === 'blocked', 'blocked');
      const [question] = await kit.service.questions(created.id, true);
      expect(question).toMatchObject({ kind: 'yes_no', prompt: 'Ship it?', stageId: 'ask@1', status: 'pending' });
      expect(blocked.pendingQuestionIds).toEqual([question!.id]);
      await expect(kit.service.answer(created.id, question!.id, 'yes')).rejects.toThrow(/must be true or false/);
      await kit.service.answer(created.id, question!.id, true);
      const done = await kit.until(created.id, (run) => run.status === 'succeeded', 'succeeded');
      expect(done.pendingQuestionIds).toEqual([]);
    } finally {
      await worker.stop();
    }
    const events = await kit.events(created.id);
    expect(statusChanges(events)).toEqual(['queued', 'starting', 'running', 'blocked', 'running', 'succeeded']);
    expect(finishedStages(events).map(([id]) => id)).toEqual(['ask@1', 'route@1', 'ship@1']);
  });

  it('a question ends with its stage attempt: cancel then retry leaves only the new attempt pending', async () => {
    const file = await kit.write('wf.toml', `
[nodes.review]
kind = "human"
question = "Publish these notes?"
type = "yes_no"
next = "done"
[nodes.done]
kind = "command"
run = "echo done"
`);
    const created = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
    const worker = kit.startWorker();
    try {
      await kit.until(created.id, (run) => run.status === 'blocked', 'blocked');
      const [first] = await kit.service.questions(created.id, true);
      await kit.service.cancel(created.id, 'not now');
      const cancelled = await kit.until(created.id, (run) => run.status === 'cancelled', 'cancelled');
      expect(cancelled.pendingQuestionIds).toEqual([]);
      expect(await kit.service.questions(created.id, true)).toEqual([]);
      await kit.service.retry(created.id);
      const blocked = await kit.until(created.id, (run) => run.status === 'blocked' && run.attempt === 2, 'blocked again');
      const pending = await kit.service.questions(created.id, true);
      expect(pending.map((question) => question.stageId)).toEqual(['review@2']);
      expect(blocked.pendingQuestionIds).toEqual([pending[0]!.id]);
      expect((await kit.service.questions(created.id)).find((question) => question.id === first!.id)).toMatchObject({ status: 'withdrawn', stageId: 'review@1' });
      await expect(kit.service.answer(created.id, first!.id, true)).rejects.toThrow(`Question ${first!.id} of run ${created.id} was withdrawn: its stage review@1 ended before an answer came.`);
      await kit.service.answer(created.id, pending[0]!.id, true);
      await kit.until(created.id, (run) => run.status === 'succeeded', 'succeeded');
      const events = await kit.events(created.id);
      expect(events.filter((event) => event.type === 'question-withdrawn').map((event) => [event.stageId, event.payload])).toEqual([['review@1', { questionId: first!.id, reason: 'stage-ended' }]]);
    } finally {
      await worker.stop();
    }
  });

  it('a run cancelled with no runner withdraws its question; the retried stage asks anew', async () => {
    const file = await kit.write('wf.toml', `
[nodes.review]
kind = "human"
question = "Publish these notes?"
type = "yes_no"
`);
    const created = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
    const worker = kit.startWorker();
    await kit.until(created.id, (run) => run.status === 'blocked', 'blocked');
    await worker.stop();
    const [first] = await kit.service.questions(created.id, true);
    await kit.store.appendEvents(created.id, [{ type: 'run-status-changed', payload: { to: 'cancelled', reason: 'runner gone' } }]);
    expect((await kit.service.get(created.id)).pendingQuestionIds).toEqual([]);
    expect((await kit.events(created.id)).at(-1)).toMatchObject({ type: 'question-withdrawn', stageId: 'review@1', payload: { questionId: first!.id, reason: 'run-ended' } });
    await kit.service.retry(created.id);
    const again = kit.startWorker();
    try {
      const blocked = await kit.until(created.id, (run) => run.status === 'blocked' && run.pendingQuestionIds.length === 1, 'blocked again');
      expect(blocked.pendingQuestionIds).not.toContain(first!.id);
      await kit.service.answer(created.id, blocked.pendingQuestionIds[0]!, true);
      await kit.until(created.id, (run) => run.status === 'succeeded', 'succeeded');
    } finally {
      await again.stop();
    }
  });

  it('creates a child run, waits for it, and links it to its parent', async () => {
    await kit.write('child.toml', `
[inputs.n]
type = "integer"
[nodes.work]
kind = "command"
run = "echo child-{{ inputs.n }} > child-{{ inputs.n }}.txt"
`);
    const { run, events } = await runWorkflow(`
[nodes.spawn]
kind = "child"
workflow = "child.toml"
inputs = { n = 7 }
`);
    expect(run.status).toBe('succeeded');
    const childId = String(events.find((event) => event.type === 'child-run-created')?.payload.childId);
    const child = await kit.service.get(childId);
    expect(child).toMatchObject({ parentId: run.id, status: 'succeeded', inputs: { n: 7 } });
    expect(await readFile(join(kit.dir, 'child-7.txt'), 'utf8')).toBe('child-7\n');
    expect((await kit.service.search({ parentId: run.id })).runs.map((r) => r.id)).toEqual([childId]);
  });

  it('calls tools directly in tool stages', async () => {
    const { run, events } = await runWorkflow(`
[nodes.write]
kind = "tool"
tool = "write_file"
args = { file_path = "out/note.txt", content = "from a tool node" }
next = "read"
[nodes.read]
kind = "tool"
tool = "read_file"
args = { file_path = "out/note.txt" }
`);
    expect(run.status).toBe('succeeded');
    expect(await readFile(join(kit.dir, 'out/note.txt'), 'utf8')).toBe('from a tool node');
    expect(String(events.find((event) => event.stageId === 'read@1' && event.type === 'stage-finished')?.payload.output)).toContain('from a tool node');
    expect(run.counts.toolCalls).toBe(2);
  });

  it("appends a tool stage that only reads in one commit, a writing tool's start before it runs, a branch's start with its finish", async () => {
    const appends: string[][] = [];
    const append = kit.store.appendEvents.bind(kit.store);
    kit.store.appendEvents = async (runId, events, options) => {
      appends.push(events.map((event) => `${event.type}${event.stageId ? ` ${event.stageId}` : ''}`));
      return append(runId, events, options);
    };
    await kit.write('tiny.txt', 'tiny');
    const { run, events } = await runWorkflow(`
[nodes.read]
kind = "tool"
tool = "read_file"
args = { file_path = "tiny.txt" }
next = "route"
[nodes.route]
kind = "branch"
[[nodes.route.edges]]
to = "write"
when = 'stages.read.status == "succeeded"'
[nodes.write]
kind = "tool"
tool = "write_file"
args = { file_path = "out/note.txt", content = "written" }
next = "done"
[nodes.done]
kind = "command"
run = "true"
`);
    expect(run.status).toBe('succeeded');
    const stageAppends = appends.filter((types) => types.some((type) => type.includes('@')));
    expect(stageAppends).toEqual([
      // read_file changes nothing: a runner lost while it reads leaves nothing a new attempt would need.
      ['stage-started read@1', 'tool-call-started read@1', 'tool-call-finished read@1', 'stage-finished read@1'],
      ['stage-started route@1', 'stage-finished route@1'],
      // write_file changes the workspace: the log says it started before it does.
      ['stage-started write@1', 'tool-call-started write@1'],
      ['tool-call-finished write@1', 'stage-finished write@1'],
      // A command stage's start is its own append: it spawns a process next.
      ['stage-started done@1'],
      ['stage-process-started done@1'],
      ['stage-finished done@1'],
    ]);
    expect(finishedStages(events)).toEqual([
      ['read@1', 'succeeded'],
      ['route@1', 'succeeded'],
      ['write@1', 'succeeded'],
      ['done@1', 'succeeded'],
    ]);
    expect(appends[0]).toEqual(['run-status-changed', 'run-status-changed']);
  });

  it('fails agent stages clearly when no model is configured', async () => {
    const { run } = await runWorkflow(`
[nodes.think]
kind = "agent"
prompt = "Plan the release"
`);
    expect(run.status).toBe('failed');
    expect(run.reason).toMatch(/^stage 'think' failed: No model configured: agent stage 'think' needs an LLM provider\./);
  });

  it('dry runs walk the graph without side effects', async () => {
    const file = await kit.write('wf.toml', `
[nodes.make]
kind = "command"
run = "touch made"
next = "write"
[nodes.write]
kind = "tool"
tool = "write_file"
args = { file_path = "written.txt", content = "x" }
`);
    const created = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true, dryRun: true });
    await kit.runUntilIdle();
    const run = await kit.service.get(created.id);
    expect(run.status).toBe('succeeded');
    expect(existsSync(join(kit.dir, 'made'))).toBe(false);
    expect(existsSync(join(kit.dir, 'written.txt'))).toBe(false);
    expect(finishedStages(await kit.events(created.id))).toEqual([
      ['make@1', 'succeeded'],
      ['write@1', 'succeeded'],
    ]);
  });

  it('a retried run goes on from the failed stage without re-running completed ones', async () => {
    const file = await kit.write('wf.toml', `
[nodes.prepare]
kind = "command"
run = "echo x >> prepared"
next = "gate"
[nodes.gate]
kind = "command"
run = "test -f open"
next = "done"
[nodes.done]
kind = "command"
run = "echo done"
`);
    const created = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
    await kit.runUntilIdle();
    expect((await kit.service.get(created.id)).status).toBe('failed');
    await kit.write('open', '');
    await kit.service.retry(created.id);
    await kit.runUntilIdle();
    const run = await kit.service.get(created.id);
    expect(run).toMatchObject({ status: 'succeeded', attempt: 2 });
    expect(finishedStages(await kit.events(created.id))).toEqual([
      ['prepare@1', 'succeeded'],
      ['gate@1', 'failed'],
      ['gate@2', 'succeeded'],
      ['done@1', 'succeeded'],
    ]);
    expect(await readFile(join(kit.dir, 'prepared'), 'utf8')).toBe('x\n');
  });

  it('cancel kills a running command tree and ends the run cancelled', async () => {
    const file = await kit.write('wf.toml', `
[nodes.sleepy]
kind = "command"
run = "sleep 300 & echo $! > child.pid; wait"
`);
    const created = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
    const worker = kit.startWorker();
    try {
      await kit.until(created.id, () => existsSync(join(kit.dir, 'child.pid')), 'sleeping');
      const pid = Number((await readFile(join(kit.dir, 'child.pid'), 'utf8')).trim());
      await kit.service.cancel(created.id, 'no longer needed');
      const run = await kit.until(created.id, (r) => r.status === 'cancelled', 'cancelled');
      expect(run.reason).toBe('no longer needed');
      expect(processGone(pid)).toBe(true);
    } finally {
      await worker.stop();
    }
    expect(finishedStages(await kit.events(created.id))).toEqual([['sleepy@1', 'cancelled']]);
  });

  it('interrupt pauses the run; start resumes it and the stage runs again', async () => {
    const file = await kit.write('wf.toml', `
[nodes.wait]
kind = "command"
run = "echo started >> log; while [ ! -f go ]; do sleep 0.05; done"
`);
    const created = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
    const worker = kit.startWorker();
    try {
      await kit.until(created.id, () => existsSync(join(kit.dir, 'log')), 'started');
      await kit.service.interrupt(created.id);
      await kit.until(created.id, (run) => run.status === 'paused', 'paused');
      await kit.write('go', '');
      await kit.service.start(created.id);
      await kit.until(created.id, (run) => run.status === 'succeeded', 'succeeded');
    } finally {
      await worker.stop();
    }
    const events = await kit.events(created.id);
    expect(finishedStages(events)).toEqual([
      ['wait@1', 'interrupted'],
      ['wait@2', 'succeeded'],
    ]);
    expect(statusChanges(events)).toEqual(['queued', 'starting', 'running', 'paused', 'running', 'succeeded']);
  });

  it('a pending run waits for approval; deny cancels it with the reason', async () => {
    const file = await kit.write('wf.toml', `[nodes.a]\nkind = "command"\nrun = "true"\n`);
    const pending = await kit.service.create({ workflow: file, cwd: kit.dir });
    expect(pending.status).toBe('pending');
    await kit.runUntilIdle();
    expect((await kit.service.get(pending.id)).status).toBe('pending');
    await expect(kit.service.retry(pending.id)).rejects.toThrow(`Run ${pending.id} is pending; it can be retried only when failed or cancelled.`);
    const denied = await kit.service.deny(pending.id, 'not today');
    expect(denied).toMatchObject({ status: 'cancelled', reason: 'denied: not today' });
    await expect(kit.service.approve(pending.id)).rejects.toThrow(`Run ${pending.id} is cancelled (denied: not today); it can be approved only when pending.`);
    const other = await kit.service.create({ workflow: file, cwd: kit.dir });
    await kit.service.approve(other.id);
    await kit.runUntilIdle();
    expect((await kit.service.get(other.id)).status).toBe('succeeded');
  });
});

function processGone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.split(') ')[1]?.startsWith('Z') ?? true;
  } catch {
    return true;
  }
}
