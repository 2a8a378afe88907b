/**
 * Budgets inside a stage on the real Claude Code (`@anthropic-ai/claude-code`), offline
 * against the fake model server: Claude Code's stream reports each model message's tokens,
 * so weft checks the run's and the stage's budgets at each turn boundary (a turn recorded,
 * its tool calls answered). Over a stage budget with `on_exceeded = "fail"` the CLI is ended
 * there and the stage fails; over the run budget with `pause` the CLI's process group is
 * frozen while the raise-or-cancel question waits, goes on once raised and is ended on a
 * cancel. Each turn runs a real Bash command that appends to `steps.txt`, so the file tells how many tool calls ran.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClaudeKit, useClaudeTestContext } from './kits/cli-backend-kit.js';
import { groupAlive } from '../src/core/process-group.js';
import type { RecordedRequest, ScriptOutcome } from './fixtures/model-server/model-server.js';

/** A Bash step per turn (400 input tokens each) until `steps` tool results, then the answer. */
function stepScript(steps: number): (request: RecordedRequest) => ScriptOutcome {
  return (request) => {
    const results = request.messages.filter((message) => message.role === 'tool').length;
    if (results < steps)
      return {
        text: `Step ${results + 1}.`,
        toolCalls: [{ name: 'Bash', arguments: { command: 'echo step >> steps.txt', description: 'One step' } }],
        usage: { input: 400, output: 10 },
      };
    return { text: 'All steps done.', usage: { input: 100, output: 10 } };
  };
}

const workflow = (budgets: string, nodeBudget = '') => `
[workflow]
name = "cli-budget"
${budgets}
[nodes.code]
kind = "agent"
backend = "cli"
cli = "claude"
model = "anthropic:claude-test"
max_turns = 12
prompt = "Take the steps."
${nodeBudget}
`;

const context = useClaudeTestContext();
const steps = async () => (await readFile(join(context.kit.dir, 'steps.txt'), 'utf8')).split('\n').filter((line) => line !== '').length;
const budgetEvents = async (id: string) =>
  (await context.kit.events(id))
    .filter((event) => event.type.startsWith('budget-'))
    .map((event) => [event.type, event.payload.stage ?? null, event.payload.limits] as const);

/** The scheduling state of a process (`T` when stopped), from /proc. */
async function processState(pid: number): Promise<string> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

describe('budgets in a Claude Code stage', () => {
  it('ends the CLI between turns and fails the stage when its own budget is spent (on_exceeded = "fail")', async () => {
    context.claude = await createClaudeKit(context.kit, stepScript(8));
    const file = await context.kit.write('wf.toml', workflow('', 'budget = { max_tokens = 1000, on_exceeded = "fail" }'));
    const created = await context.kit.service.create({ workflow: file, cwd: context.kit.dir, autoApprove: true });
    await context.kit.runUntilIdle({ agent: context.claude.agent });

    const run = await context.kit.service.get(created.id);
    expect(run.status).toBe('failed');
    const events = await context.kit.events(created.id);
    const finished = events.find((event) => event.type === 'stage-finished' && event.stageId === 'code@1')!;
    expect(finished.payload).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(
        /^Budget of stage 'code' exceeded: \d+ tokens of 1000 tokens \(tokens\)\. Raise \[nodes\.code\.budget\]\.$/,
      ),
    });
    // ~400 tokens a turn: the warning after the second, the stop after the third — whose Bash call had finished.
    expect(await budgetEvents(created.id)).toEqual([
      ['budget-warning', 'code', { maxTokens: 1000 }],
      ['budget-exceeded', 'code', { maxTokens: 1000 }],
    ]);
    expect(events.filter((event) => event.type === 'tool-call-finished')).toHaveLength(3);
    expect(await steps()).toBe(3);
  });

  it("freezes the CLI while the run budget's question waits, and goes on once raised", async () => {
    context.claude = await createClaudeKit(context.kit, stepScript(4));
    const file = await context.kit.write('wf.toml', workflow('[run.budget]\nmax_tokens = 1000\n'));
    const created = await context.kit.service.create({ workflow: file, cwd: context.kit.dir, autoApprove: true });
    const worker = context.kit.startWorker({ agent: context.claude.agent });
    try {
      await context.kit.until(created.id, (run) => run.status === 'blocked', 'blocked on the budget question');
      const [question] = await context.kit.service.questions(created.id, true);
      expect(question).toMatchObject({ kind: 'choice', stageId: 'code@1', options: ['raise', 'cancel'] });
      expect(question!.prompt).toMatch(/^The run's budget is spent: \d+ tokens of 1000 tokens \(tokens\)/);
      // Claude Code's group is stopped, not running on: three steps, and its process is in state T.
      const started = (await context.kit.events(created.id)).find((event) => event.type === 'stage-process-started')!;
      expect(await processState(Number(started.payload.pgid))).toBe('T');
      expect(await steps()).toBe(3);

      await context.kit.service.answer(created.id, question!.id, 'raise');
      await context.kit.until(created.id, (run) => run.status === 'succeeded', 'succeeded after the raise');
    } finally {
      await worker.stop();
    }
    expect(await steps()).toBe(4);
    const events = await context.kit.events(created.id);
    expect(events.find((event) => event.type === 'stage-finished')!.payload).toMatchObject({
      status: 'succeeded',
      output: 'All steps done.',
    });
    const kinds = (await budgetEvents(created.id)).map(([type, stage, limits]) => [type, stage, limits]);
    expect(kinds.slice(0, 3)).toEqual([
      ['budget-warning', null, { maxTokens: 1000 }],
      ['budget-exceeded', null, { maxTokens: 1000 }],
      ['budget-raised', null, { maxTokens: 2000 }],
    ]);
  });

  it('ends the frozen CLI and cancels the run when the answer is cancel', async () => {
    context.claude = await createClaudeKit(context.kit, stepScript(8));
    const file = await context.kit.write('wf.toml', workflow('[run.budget]\nmax_tokens = 1000\n'));
    const created = await context.kit.service.create({ workflow: file, cwd: context.kit.dir, autoApprove: true });
    const worker = context.kit.startWorker({ agent: context.claude.agent });
    let pgid: number | undefined;
    try {
      await context.kit.until(created.id, (run) => run.status === 'blocked', 'blocked on the budget question');
      pgid = Number((await context.kit.events(created.id)).find((event) => event.type === 'stage-process-started')!.payload.pgid);
      expect(await processState(pgid)).toBe('T');
      const [question] = await context.kit.service.questions(created.id, true);
      await context.kit.service.answer(created.id, question!.id, 'cancel');
      await context.kit.until(created.id, (run) => run.status === 'cancelled', 'cancelled at the budget question');
    } finally {
      await worker.stop();
    }
    // The stopped group was ended, not left frozen: nothing of it is alive, and no step ran after the third.
    expect(pgid).toBeGreaterThan(0);
    expect(groupAlive(pgid!)).toBe(false);
    expect(await steps()).toBe(3);
    const finished = (await context.kit.events(created.id)).find((event) => event.type === 'stage-finished')!;
    expect(finished.payload).toMatchObject({ status: 'cancelled', error: expect.stringContaining('cancelled at the budget question') });
  });
});
