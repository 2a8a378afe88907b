/**
 * A stage's own budget (`[nodes.<name>.budget]`), end to end on a real SQLite store with the
 * real Anthropic provider package against the fake model server ($0.45 and 110k tokens a
 * turn): it counts only that node's turns — not the stages before it — warns at 80 % and
 * stops between turns at 100 % with the run budget's question (raise or cancel), its events
 * naming the stage; with `on_exceeded = "fail"` it fails, and a retry of the node starts
 * already over the budget, since every attempt of the node counts. Its events and raises are
 * its own: raising it leaves the run's budget as it was.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngineKit, finishedStages, type EngineKit } from './kits/engine-kit.js';
import { stageFinished } from './fixtures/model-server/agent-kit.js';
import { DONE_TURN, pricedAgent, READ_TURN } from './kits/priced-turns.js';
import { startModelServer, type ModelServer } from './fixtures/model-server/model-server.js';

// $0.45 and 110k tokens a turn (test/kits/priced-turns.ts).
const READ = READ_TURN;
const DONE = DONE_TURN;

let kit: EngineKit;
let server: ModelServer;

beforeEach(async () => {
  kit = await createEngineKit();
  await kit.write('notes.txt', 'alpha\n');
});

afterEach(async () => {
  await server?.close();
  await kit.close();
});

const agent = () => pricedAgent(server);
const budgetEvents = async (id: string) =>
  (await kit.events(id))
    .filter((event) => event.type.startsWith('budget-'))
    .map((event) => [event.type, event.stageId, event.payload.stage ?? null, event.payload.limits] as const);

describe('a stage budget', () => {
  it("counts only its node's turns, warns at 80 %, pauses at 100 % and goes on once raised", async () => {
    // `first` spends $0.90 with no budget of its own; `write` has $1.00 of its own.
    server = await startModelServer({ script: [READ, DONE, READ, READ, READ, READ, DONE] });
    const workflow = `
[workflow]
name = "staged"
[nodes.first]
kind = "agent"
prompt = "Look first."
tools = ["read_file"]
next = "write"
[nodes.write]
kind = "agent"
prompt = "Keep reading."
tools = ["read_file"]
[nodes.write.budget]
max_cost_usd = 1.0
`;
    const created = await kit.service.create({ workflow: await kit.write('wf.toml', workflow), cwd: kit.dir, autoApprove: true });
    const worker = kit.startWorker({ agent: agent() });
    try {
      // write: $0.45, $0.90 (warning), $1.35 — stopped before its fourth turn, the third turn's tool call done.
      await kit.until(created.id, (run) => run.status === 'blocked', 'blocked on the stage budget question');
      expect(server.requests).toHaveLength(5);
      const events = await kit.events(created.id);
      expect(events.filter((event) => event.type === 'tool-call-finished' && event.stageId === 'write@1')).toHaveLength(3);
      const [question, ...others] = await kit.service.questions(created.id, true);
      expect(others).toEqual([]);
      expect(question).toMatchObject({ kind: 'choice', stageId: 'write@1', options: ['raise', 'cancel'] });
      expect(question!.prompt).toContain("The budget of stage 'write' is spent: $1.35 of $1.00 (cost)");
      expect(question!.prompt).toContain('cost to $2.00');

      await kit.service.answer(created.id, question!.id, 'raise');
      await kit.until(created.id, (run) => run.status === 'succeeded', 'succeeded after the raise');
    } finally {
      await worker.stop();
    }
    expect(server.requests).toHaveLength(7);
    expect(await budgetEvents(created.id)).toEqual([
      ['budget-warning', 'write@1', 'write', { maxCostUsd: 1 }],
      ['budget-exceeded', 'write@1', 'write', { maxCostUsd: 1 }],
      ['budget-raised', 'write@1', 'write', { maxCostUsd: 2 }],
      ['budget-warning', 'write@1', 'write', { maxCostUsd: 2 }],
    ]);
    // The run's spend is every stage's: $0.90 + $2.25.
    expect((await kit.service.get(created.id)).usage?.estimatedCostUsd).toBeCloseTo(3.15, 9);
  });

  it('fails with on_exceeded = "fail", and a retry of the node starts over the budget: every attempt counts', async () => {
    server = await startModelServer({ script: [READ, READ, READ, DONE] });
    const workflow = `
[workflow]
name = "staged"
[nodes.write]
kind = "agent"
prompt = "Keep reading."
tools = ["read_file"]
retry = { attempts = 2, backoff = "1ms" }
budget = { max_tokens = 200000, on_exceeded = "fail" }
`;
    const created = await kit.service.create({ workflow: await kit.write('wf.toml', workflow), cwd: kit.dir, autoApprove: true });
    await kit.runUntilIdle({ agent: agent() });
    expect((await kit.service.get(created.id)).status).toBe('failed');
    const events = await kit.events(created.id);
    expect(finishedStages(events)).toEqual([
      ['write@1', 'failed'],
      ['write@2', 'failed'],
    ]);
    const reason = "Budget of stage 'write' exceeded: 220000 tokens of 200000 tokens (tokens). Raise [nodes.write.budget].";
    expect(stageFinished(events, 'write@1')?.error).toBe(reason);
    expect(stageFinished(events, 'write@2')?.error).toBe(reason);
    // Two turns in the first attempt; the second attempt made no model call at all.
    expect(server.requests).toHaveLength(2);
    expect(await budgetEvents(created.id)).toEqual([
      ['budget-exceeded', 'write@1', 'write', { maxTokens: 200000 }],
      ['budget-exceeded', 'write@2', 'write', { maxTokens: 200000 }],
    ]);
  });

  it("keeps apart from the run's budget: the stage's raise leaves the run's limit, which then fails the run", async () => {
    server = await startModelServer({ script: [READ, READ, READ, READ, READ, DONE] });
    const workflow = `
[workflow]
name = "staged"
[run.budget]
max_cost_usd = 2.0
on_exceeded = "fail"
[nodes.write]
kind = "agent"
prompt = "Keep reading."
tools = ["read_file"]
budget = { max_cost_usd = 1.0 }
`;
    const created = await kit.service.create({ workflow: await kit.write('wf.toml', workflow), cwd: kit.dir, autoApprove: true });
    const worker = kit.startWorker({ agent: agent() });
    try {
      await kit.until(created.id, (run) => run.status === 'blocked', "blocked on the stage budget's question");
      const [question] = await kit.service.questions(created.id, true);
      await kit.service.answer(created.id, question!.id, 'raise');
      await kit.until(created.id, (run) => run.status === 'failed', 'failed on the run budget');
    } finally {
      await worker.stop();
    }
    // $1.35 stops the stage ($1.00); raised to $2.00 it goes on; $1.80 warns both; $2.25 is over the run's $2.00.
    expect(await budgetEvents(created.id)).toEqual([
      ['budget-warning', 'write@1', 'write', { maxCostUsd: 1 }],
      ['budget-exceeded', 'write@1', 'write', { maxCostUsd: 1 }],
      ['budget-raised', 'write@1', 'write', { maxCostUsd: 2 }],
      ['budget-warning', 'write@1', null, { maxCostUsd: 2 }],
      ['budget-warning', 'write@1', 'write', { maxCostUsd: 2 }],
      ['budget-exceeded', 'write@1', null, { maxCostUsd: 2 }],
    ]);
    expect(stageFinished(await kit.events(created.id), 'write@1')?.error).toBe(
      'Run budget exceeded: $2.25 of $2.00 (cost). Raise [run.budget] or start the run with a larger --budget.',
    );
    expect(server.requests).toHaveLength(5);
  });
});
