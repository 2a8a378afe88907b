// A run's graph coloured by its stages, over runs the real engine executed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngineKit, type EngineKit } from '../../../test/kits/engine-kit.js';
import { drawRunGraph } from './run-graph.js';

let kit: EngineKit;
beforeEach(async () => {
  kit = await createEngineKit();
});
afterEach(async () => {
  await kit.close();
});

const BRANCHING = `
[inputs.code]
type = "integer"
[nodes.check]
kind = "command"
run = "exit {{ inputs.code }}"
next = "route"
[nodes.route]
kind = "branch"
[[nodes.route.edges]]
to = "ship"
when = "stages.check.exit_code == 0"
[[nodes.route.edges]]
to = "hold"
[nodes.ship]
kind = "command"
run = "echo ship"
[nodes.hold]
kind = "command"
run = "exit 1"
`;

async function create(toml: string, inputs: Record<string, unknown> = {}): Promise<string> {
  const file = await kit.write('wf.toml', toml);
  return (await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true, inputs })).id;
}

async function states(runId: string): Promise<Record<string, string>> {
  const svg = await drawRunGraph(kit.service, runId, 'svg');
  return Object.fromEntries(
    [...svg.matchAll(/data-node="([^"]+)" data-kind="\w+" data-state="(\w+)"/g)].map(([, node, state]) => [node!, state!]),
  );
}

describe('drawRunGraph', () => {
  it('shows every node pending before a runner takes the run', async () => {
    const runId = await create(BRANCHING, { code: 0 });
    expect(await states(runId)).toEqual({ check: 'pending', route: 'pending', ship: 'pending', hold: 'pending' });
  });

  it('colours the path taken succeeded and the branch not taken skipped', async () => {
    const runId = await create(BRANCHING, { code: 0 });
    await kit.runUntilIdle();
    expect(await states(runId)).toEqual({ check: 'succeeded', route: 'succeeded', ship: 'succeeded', hold: 'skipped' });
  });

  it('colours a failed stage failed and what the run never reached skipped', async () => {
    const runId = await create(BRANCHING, { code: 2 });
    await kit.runUntilIdle();
    expect((await kit.service.get(runId)).status).toBe('failed');
    expect(await states(runId)).toEqual({ check: 'failed', route: 'skipped', ship: 'skipped', hold: 'skipped' });
  });

  it('colours a stage that waits for an answer running, and the rest pending', async () => {
    const runId = await create(`
[nodes.ask]
kind = "human"
question = "Ship?"
type = "yes_no"
next = "ship"
[nodes.ship]
kind = "command"
run = "echo ship"
`);
    const worker = kit.startWorker();
    await kit.until(runId, (run) => run.counts.questionsPending === 1, 'asking');
    await worker.stop();
    expect(await states(runId)).toEqual({ ask: 'running', ship: 'pending' });
    expect(await drawRunGraph(kit.service, runId, 'mermaid')).toContain('classDef running fill:#dbeafe,stroke:#2563eb\n  class n0 running');
  });
});
