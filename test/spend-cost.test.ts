/**
 * What a run costs, end to end: the real Anthropic provider package talks to the fake model
 * server, every turn is priced from the bundled price table (or an `[llm.prices]`
 * override), and the figures add up on the stage, in the run's stored summary, in the HTTP
 * view and in the spend summed over runs — estimated figures never passed off as reported.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngineKit, type EngineKit } from './kits/engine-kit.js';
import { agentRunner, llmSettings, runWorkflow, stageFinished } from './fixtures/model-server/agent-kit.js';
import { startModelServer, type ModelServer } from './fixtures/model-server/model-server.js';
import { RunDetails } from '../src/app/views/run-detail.js';
import { runSummary } from '../src/app/views/run-view.js';
import { summarizeUsage } from '../src/app/services/usage-summary.js';
import { usageSummaryView } from '../src/app/views/usage-view.js';

const workflow = (name: string) => `
[workflow]
name = "${name}"
[nodes.write]
kind = "agent"
prompt = "Write it."
tools = ["read_file"]
`;

let kit: EngineKit;
let server: ModelServer | undefined;

beforeEach(async () => {
  kit = await createEngineKit();
  await kit.write('notes.txt', 'alpha\n');
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await kit.close();
});

const SCRIPT = [
  {
    text: 'Reading.',
    toolCalls: [{ name: 'read_file', arguments: { file_path: 'notes.txt' } }],
    usage: { input: 100_000, output: 10_000 },
  },
  { text: 'Done.', usage: { input: 20_000, output: 2_000 } },
];

describe('the cost of a run', () => {
  it('prices every turn from the price table and adds it up per stage, per run and over runs', async () => {
    server = await startModelServer({ script: [...SCRIPT, ...SCRIPT] });
    const llm = llmSettings(server, 'anthropic', { model: 'claude-sonnet-4-5' });
    const { run, events } = await runWorkflow(kit, workflow('priced'), agentRunner(llm));
    expect(run.status).toBe('succeeded');

    // claude-sonnet-4-5 under 200k tokens: $3 per million input, $15 per million output.
    const turns = events.filter((event) => event.type === 'model-turn-finished').map((event) => event.payload);
    expect(turns.map((turn) => turn.model)).toEqual(['anthropic:claude-sonnet-4-5', 'anthropic:claude-sonnet-4-5']);
    expect(turns.map((turn) => (turn.usage as { estimatedCostUsd: number }).estimatedCostUsd)).toEqual([
      expect.closeTo(0.45, 9),
      expect.closeTo(0.09, 9),
    ]);
    expect(turns.every((turn) => (turn.usage as Record<string, unknown>).reportedCostUsd === undefined)).toBe(true);
    expect(stageFinished(events, 'write@1')?.usage).toMatchObject({
      inputTokens: 120_000,
      outputTokens: 12_000,
      estimatedCostUsd: expect.closeTo(0.54, 9),
    });

    // The stored summary folds the same from the log; views say which figure is an estimate.
    expect(run.usage).toMatchObject({ totalTokens: 132_000, estimatedCostUsd: expect.closeTo(0.54, 9) });
    expect(runSummary(run).cost).toEqual({
      reported_usd: null,
      estimated_usd: expect.closeTo(0.54, 9),
      total_usd: expect.closeTo(0.54, 9),
      unpriced_turns: 0,
    });
    const detail = await new RunDetails().read(kit.service, run.id);
    expect(detail.stages[0]!.cost).toEqual({
      reported_usd: null,
      estimated_usd: expect.closeTo(0.54, 9),
      total_usd: expect.closeTo(0.54, 9),
      unpriced_turns: 0,
    });
    expect(detail.cost?.total_usd).toBeCloseTo(0.54, 9);

    // A second run of another workflow: the sums over runs add both, grouped as asked.
    const second = await runWorkflow(kit, workflow('also-priced'), agentRunner(llm));
    const byWorkflow = usageSummaryView(await summarizeUsage(kit.service, { since: run.createdAt - 1, groupBy: 'workflow' }));
    expect(byWorkflow.runs).toBe(2);
    expect(byWorkflow.cost?.estimated_usd).toBeCloseTo(1.08, 9);
    expect(byWorkflow.groups?.map((group) => [group.key, group.runs, group.tokens.total])).toEqual([
      ['also-priced', 1, 132_000],
      ['priced', 1, 132_000],
    ]);
    const byModel = await summarizeUsage(kit.service, { since: run.createdAt - 1, groupBy: 'model' });
    expect(byModel.groups?.map((group) => [group.key, group.runs])).toEqual([['anthropic:claude-sonnet-4-5', 2]]);
    const later = await summarizeUsage(kit.service, { since: second.run.createdAt });
    expect(later.runs).toBe(0);
  });

  it('prices a model the table does not know from [llm.prices], and counts it unpriced without one', async () => {
    server = await startModelServer({ script: [...SCRIPT, ...SCRIPT] });
    const unknown = await runWorkflow(
      kit,
      workflow('unpriced'),
      agentRunner(llmSettings(server, 'anthropic', { model: 'claude-private' })),
    );
    expect(unknown.run.usage).toMatchObject({ totalTokens: 132_000, unpricedTurns: 2 });
    expect(unknown.run.usage?.estimatedCostUsd).toBeUndefined();
    expect(runSummary(unknown.run).cost).toEqual({ reported_usd: null, estimated_usd: null, total_usd: 0, unpriced_turns: 2 });

    const prices = { 'anthropic:claude-private': { inputPerMtok: 1, outputPerMtok: 10 } };
    const priced = await runWorkflow(
      kit,
      workflow('overridden'),
      agentRunner(llmSettings(server, 'anthropic', { model: 'claude-private', prices })),
    );
    // 120k input at $1, 12k output at $10.
    expect(priced.run.usage).toMatchObject({ estimatedCostUsd: expect.closeTo(0.12 + 0.12, 9) });
    expect(priced.run.usage?.unpricedTurns).toBeUndefined();
  });
});
