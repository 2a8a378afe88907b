import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
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

describe('RunExecutor: questions, children, tools and control', () => {
  it('blocks on a human question, then branches on the answer', async () => {
    const file = await kit.write(
      'wf.toml',
      `
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
`,
    );
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
    const file = await kit.write(
      'wf.toml',
      `
[nodes.review]
kind = "human"
question = "Publish these notes?"
type = "yes_no"
next = "done"
[nodes.done]
kind = "command"
run = "echo done"
`,
    );
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
      expect((await kit.service.questions(created.id)).find((question) => question.id === first!.id)).toMatchObject({
        status: 'withdrawn',
        stageId: 'review@1',
      });
      await expect(kit.service.answer(created.id, first!.id, true)).rejects.toThrow(
        `Question ${first!.id} of run ${created.id} was withdrawn: its stage review@1 ended before an answer came.`,
      );
      await kit.service.answer(created.id, pending[0]!.id, true);
      await kit.until(created.id, (run) => run.status === 'succeeded', 'succeeded');
      const events = await kit.events(created.id);
      expect(events.filter((event) => event.type === 'question-withdrawn').map((event) => [event.stageId, event.payload])).toEqual([
        ['review@1', { questionId: first!.id, reason: 'stage-ended' }],
      ]);
    } finally {
      await worker.stop();
    }
  });

  it('a run cancelled with no runner withdraws its question; the retried stage asks anew', async () => {
    const file = await kit.write(
      'wf.toml',
      `
[nodes.review]
kind = "human"
question = "Publish these notes?"
type = "yes_no"
`,
    );
    const created = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
    const worker = kit.startWorker();
    await kit.until(created.id, (run) => run.status === 'blocked', 'blocked');
    await worker.stop();
    const [first] = await kit.service.questions(created.id, true);
    await kit.store.appendEvents(created.id, [{ type: 'run-status-changed', payload: { to: 'cancelled', reason: 'runner gone' } }]);
    expect((await kit.service.get(created.id)).pendingQuestionIds).toEqual([]);
    expect((await kit.events(created.id)).at(-1)).toMatchObject({
      type: 'question-withdrawn',
      stageId: 'review@1',
      payload: { questionId: first!.id, reason: 'run-ended' },
    });
    await kit.service.retry(created.id);
    const again = kit.startWorker();
    try {
      const blocked = await kit.until(
        created.id,
        (run) => run.status === 'blocked' && run.pendingQuestionIds.length === 1,
        'blocked again',
      );
      expect(blocked.pendingQuestionIds).not.toContain(first!.id);
      await kit.service.answer(created.id, blocked.pendingQuestionIds[0]!, true);
      await kit.until(created.id, (run) => run.status === 'succeeded', 'succeeded');
    } finally {
      await again.stop();
    }
  });

  it('creates a child run, waits for it, and links it to its parent', async () => {
    await kit.write(
      'child.toml',
      `
[inputs.n]
type = "integer"
[nodes.work]
kind = "command"
run = "echo child-{{ inputs.n }} > child-{{ inputs.n }}.txt"
`,
    );
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
    expect(String(events.find((event) => event.stageId === 'read@1' && event.type === 'stage-finished')?.payload.output)).toContain(
      'from a tool node',
    );
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
    const file = await kit.write(
      'wf.toml',
      `
[nodes.make]
kind = "command"
run = "touch made"
next = "write"
[nodes.write]
kind = "tool"
tool = "write_file"
args = { file_path = "written.txt", content = "x" }
`,
    );
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
    const file = await kit.write(
      'wf.toml',
      `
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
`,
    );
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
    const file = await kit.write(
      'wf.toml',
      `
[nodes.sleepy]
kind = "command"
run = "sleep 300 & echo $! > child.pid; wait"
`,
    );
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
    const file = await kit.write(
      'wf.toml',
      `
[nodes.wait]
kind = "command"
run = "echo started >> log; while [ ! -f go ]; do sleep 0.05; done"
`,
    );
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
    await expect(kit.service.retry(pending.id)).rejects.toThrow(
      `Run ${pending.id} is pending; it can be retried only when failed or cancelled.`,
    );
    const denied = await kit.service.deny(pending.id, 'not today');
    expect(denied).toMatchObject({ status: 'cancelled', reason: 'denied: not today' });
    await expect(kit.service.approve(pending.id)).rejects.toThrow(
      `Run ${pending.id} is cancelled (denied: not today); it can be approved only when pending.`,
    );
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
