import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { textResult, type Tool } from '../../tools/tool.js';
import { createEngineKit, finishedStages, statusChanges, type EngineKit } from '../../../test/kits/engine-kit.js';

let calls = 0;
const remoteTool: Tool = {
  name: 'mcp__tracker__create_issue',
  description: '[tracker] create an issue',
  source: 'mcp',
  server: 'tracker',
  inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
  execute: async (args) => {
    calls += 1;
    return textResult(`created ${String(args.title)}`);
  },
};

const WORKFLOW = `
[nodes.file]
kind = "tool"
tool = "mcp__tracker__create_issue"
args = { title = "flaky test" }
`;

let kit: EngineKit;
beforeEach(async () => {
  calls = 0;
  kit = await createEngineKit({ extraTools: [remoteTool] });
});
afterEach(async () => {
  await kit.close();
});

async function blockedOnApproval() {
  const file = await kit.write('wf.toml', WORKFLOW);
  // An approved run without auto_approve: MCP tools that no rule allows are asked about.
  const created = await kit.service.create({ workflow: file, cwd: kit.dir });
  await kit.service.approve(created.id);
  const worker = kit.startWorker();
  await kit.until(created.id, (run) => run.status === 'blocked', 'blocked on the approval');
  const [question] = await kit.service.questions(created.id, true);
  return { id: created.id, question: question!, worker };
}

describe('tool approval in runs', () => {
  it('an unmatched MCP tool becomes a confirmation question; yes lets the call run', async () => {
    const { id, question, worker } = await blockedOnApproval();
    try {
      expect(question).toMatchObject({
        kind: 'confirmation',
        stageId: 'file@1',
        prompt: 'Allow mcp__tracker__create_issue with these arguments? {"title":"flaky test"}',
      });
      expect(calls).toBe(0);
      await kit.service.answer(id, question.id, true);
      await kit.until(id, (run) => run.status === 'succeeded', 'succeeded');
    } finally {
      await worker.stop();
    }
    expect(calls).toBe(1);
    expect(statusChanges(await kit.events(id))).toEqual(['pending', 'queued', 'starting', 'running', 'blocked', 'running', 'succeeded']);
  });

  it('no denies the call: the tool never runs and the stage fails with the denial', async () => {
    const { id, question, worker } = await blockedOnApproval();
    try {
      await kit.service.answer(id, question.id, false);
      const run = await kit.until(id, (r) => r.status === 'failed', 'failed');
      expect(run.reason).toBe("stage 'file' failed: Tool 'mcp__tracker__create_issue' was denied by the user.");
    } finally {
      await worker.stop();
    }
    expect(calls).toBe(0);
  });

  it('cancelling a run that waits for an approval ends it', async () => {
    const { id, worker } = await blockedOnApproval();
    try {
      await kit.service.cancel(id, 'changed my mind');
      const run = await kit.until(id, (r) => r.status === 'cancelled', 'cancelled');
      expect(run.reason).toBe('changed my mind');
    } finally {
      await worker.stop();
    }
    expect(finishedStages(await kit.events(id))).toEqual([['file@1', 'cancelled']]);
    expect(calls).toBe(0);
  });

  it('auto_approve and allow rules decide without asking', async () => {
    const file = await kit.write('wf.toml', WORKFLOW);
    const auto = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
    const ruled = await kit.write('ruled.toml', `[run]\napproval = [ { pattern = "mcp__tracker__*", action = "allow" } ]\n${WORKFLOW}`);
    const byRule = await kit.service.create({ workflow: ruled, cwd: kit.dir });
    await kit.service.approve(byRule.id);
    await kit.runUntilIdle();
    expect((await kit.service.get(auto.id)).status).toBe('succeeded');
    expect((await kit.service.get(byRule.id)).status).toBe('succeeded');
    expect(calls).toBe(2);
  });
});
