/**
 * A run's budget, end to end on a real SQLite store with the real Anthropic provider
 * package against the fake model server, whose turns carry usage figures priced from the
 * bundled table ($0.45 a turn here): the stage warns at 80 %, stops between turns at
 * 100 %, and the run waits on a question — raised, it goes on (and warns again under the
 * new limit); with `on_exceeded = "fail"` it fails instead. Tool calls of a turn always
 * finish before the stop.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngineKit, finishedStages, type EngineKit } from './kits/engine-kit.js';
import { stageFinished } from './fixtures/model-server/agent-kit.js';
import { DONE_TURN, pricedAgent, READ_TURN } from './kits/priced-turns.js';
import { startModelServer, type ModelServer } from './fixtures/model-server/model-server.js';

const workflow = (budget: string) => `
[workflow]
name = "budgeted"
[run.budget]
${budget}
[nodes.write]
kind = "agent"
prompt = "Keep reading."
tools = ["read_file"]
`;

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
    .map((event) => [event.type, event.payload.dimension ?? null, event.payload.limits] as const);

describe('a run budget', () => {
  it('warns at 80 %, pauses at 100 % with a question, and goes on once raised', async () => {
    server = await startModelServer({ script: [READ, READ, READ, READ, DONE] });
    const created = await kit.service.create({
      workflow: await kit.write('wf.toml', workflow('max_cost_usd = 1.0')),
      cwd: kit.dir,
      autoApprove: true,
    });
    const worker = kit.startWorker({ agent: agent() });
    try {
      // $0.45, $0.90 (warning), $1.35: stopped before the fourth turn, its third turn's tool call done.
      await kit.until(created.id, (run) => run.status === 'blocked', 'blocked on the budget question');
      expect(server.requests).toHaveLength(3);
      const events = await kit.events(created.id);
      expect(events.filter((event) => event.type === 'tool-call-finished')).toHaveLength(3);
      const [question, ...others] = await kit.service.questions(created.id, true);
      expect(others).toEqual([]);
      expect(question).toMatchObject({ kind: 'choice', stageId: 'write@1', options: ['raise', 'cancel'] });
      expect(question!.prompt).toContain('$1.35 of $1.00 (cost)');
      expect(question!.prompt).toContain('cost to $2.00');

      await kit.service.answer(created.id, question!.id, 'raise');
      await kit.until(created.id, (run) => run.status === 'succeeded', 'succeeded after the raise');
    } finally {
      await worker.stop();
    }
    expect(server.requests).toHaveLength(5);
    // Under the raised limit ($2) the fourth turn brings $1.80: a second warning, for the new limits.
    expect(await budgetEvents(created.id)).toEqual([
      ['budget-warning', 'cost', { maxCostUsd: 1 }],
      ['budget-exceeded', 'cost', { maxCostUsd: 1 }],
      ['budget-raised', null, { maxCostUsd: 2 }],
      ['budget-warning', 'cost', { maxCostUsd: 2 }],
    ]);
    const run = await kit.service.get(created.id);
    expect(run.usage?.estimatedCostUsd).toBeCloseTo(2.25, 9);
  });

  it('cancels the run when the answer is cancel', async () => {
    server = await startModelServer({ script: [READ, READ, READ] });
    const created = await kit.service.create({
      workflow: await kit.write('wf.toml', workflow('max_tokens = 200000')),
      cwd: kit.dir,
      autoApprove: true,
    });
    const worker = kit.startWorker({ agent: agent() });
    try {
      await kit.until(created.id, (run) => run.status === 'blocked', 'blocked on the budget question');
      const [question] = await kit.service.questions(created.id, true);
      expect(question!.prompt).toContain('220000 tokens of 200000 tokens (tokens)');
      await kit.service.answer(created.id, question!.id, 'cancel');
      await kit.until(created.id, (run) => run.status !== 'blocked' && run.status !== 'running', 'ended');
    } finally {
      await worker.stop();
    }
    const run = await kit.service.get(created.id);
    expect(run.status).toBe('cancelled');
    expect(stageFinished(await kit.events(created.id), 'write@1')).toMatchObject({
      status: 'cancelled',
      error: expect.stringContaining('cancelled at the budget question'),
    });
    expect(server.requests).toHaveLength(2);
  });

  it("takes the run's own budget (weft run --budget, budget on create) over the workflow's", async () => {
    server = await startModelServer({ script: [READ, READ, READ, DONE] });
    const file = await kit.write('wf.toml', workflow('max_cost_usd = 100'));
    const created = await kit.service.create({
      workflow: file,
      cwd: kit.dir,
      autoApprove: true,
      budget: { maxCostUsd: 0.5, onExceeded: 'fail' },
    });
    expect(created.budget).toEqual({ maxCostUsd: 0.5, onExceeded: 'fail' });
    await kit.runUntilIdle({ agent: agent() });
    expect((await kit.service.get(created.id)).status).toBe('failed');
    expect(await budgetEvents(created.id)).toEqual([
      ['budget-warning', 'cost', { maxCostUsd: 0.5 }],
      ['budget-exceeded', 'cost', { maxCostUsd: 0.5 }],
    ]);
    await expect(kit.service.create({ workflow: file, cwd: kit.dir, budget: { maxCostUsd: -1 } })).rejects.toThrow(
      "budget 'maxCostUsd' must be a number ≥ 0",
    );
  });

  it('fails the stage and the run with on_exceeded = "fail"', async () => {
    server = await startModelServer({ script: [READ, READ, READ, DONE] });
    const created = await kit.service.create({
      workflow: await kit.write('wf.toml', workflow('max_cost_usd = 0.5\non_exceeded = "fail"')),
      cwd: kit.dir,
      autoApprove: true,
    });
    await kit.runUntilIdle({ agent: agent() });
    const run = await kit.service.get(created.id);
    expect(run.status).toBe('failed');
    const events = await kit.events(created.id);
    expect(finishedStages(events)).toEqual([['write@1', 'failed']]);
    expect(stageFinished(events, 'write@1')?.error).toBe(
      'Run budget exceeded: $0.9000 of $0.5000 (cost). Raise [run.budget] or start the run with a larger --budget.',
    );
    expect(await budgetEvents(created.id)).toEqual([
      ['budget-warning', 'cost', { maxCostUsd: 0.5 }],
      ['budget-exceeded', 'cost', { maxCostUsd: 0.5 }],
    ]);
    expect(server.requests).toHaveLength(2);
  });
});
