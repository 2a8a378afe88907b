/**
 * The approval default for an agent's tools that change things: `shell` (like `write_file`
 * and `edit_file`) asks a confirmation question unless a rule allows it or the run is
 * auto-approved, as MCP tools do; a workflow's own `command` stage does not ask. The
 * engine runs a real agent stage against the fake model server.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngineKit, finishedStages, type EngineKit } from './kits/engine-kit.js';
import { agentRunner, llmSettings } from './fixtures/model-server/agent-kit.js';
import { startModelServer, type ModelServer, type RecordedRequest, type ScriptOutcome } from './fixtures/model-server/model-server.js';

const SHELL_CALL = { command: 'echo made > made.txt' };

function workflow(rules = ''): string {
  return `${rules}
[nodes.build]
kind = "command"
run = "echo built > built.txt"
next = "make"

[nodes.make]
kind = "agent"
prompt = "Make the file."
tools = ["shell", "read_file"]
`;
}

function script(request: RecordedRequest): ScriptOutcome {
  if (!request.messages.some((message) => message.role === 'tool')) return { toolCalls: [{ name: 'shell', arguments: SHELL_CALL }] };
  return { text: 'done' };
}

let kit: EngineKit;
let server: ModelServer;
beforeEach(async () => {
  server = await startModelServer({ script });
  kit = await createEngineKit();
});
afterEach(async () => {
  await server.close();
  await kit.close();
});

const agent = () => agentRunner(llmSettings(server, 'anthropic'));

describe("an agent's shell call", () => {
  it('asks a confirmation question in a run that is not auto-approved; the command stage before it does not', async () => {
    const created = await kit.service.create({ workflow: await kit.write('wf.toml', workflow()), cwd: kit.dir });
    await kit.service.approve(created.id);
    const worker = kit.startWorker({ agent: agent() });
    try {
      await kit.until(created.id, (run) => run.status === 'blocked', 'blocked on the approval');
      const [question, ...others] = await kit.service.questions(created.id, true);
      expect(others).toEqual([]);
      expect(question).toMatchObject({
        kind: 'confirmation',
        stageId: 'make@1',
        prompt: `Allow shell with these arguments? ${JSON.stringify(SHELL_CALL)}`,
      });
      expect([existsSync(join(kit.dir, 'built.txt')), existsSync(join(kit.dir, 'made.txt'))]).toEqual([true, false]);
      await kit.service.answer(created.id, question!.id, true);
      await kit.until(created.id, (run) => run.status === 'succeeded', 'succeeded');
    } finally {
      await worker.stop();
    }
    expect(existsSync(join(kit.dir, 'made.txt'))).toBe(true);
    expect(finishedStages(await kit.events(created.id))).toEqual([
      ['build@1', 'succeeded'],
      ['make@1', 'succeeded'],
    ]);
  });

  it('runs without a question when a rule allows shell, or when the run is auto-approved', async () => {
    const ruled = await kit.service.create({
      workflow: await kit.write('ruled.toml', workflow('[run]\napproval = [ { pattern = "shell", action = "allow" } ]\n')),
      cwd: kit.dir,
    });
    await kit.service.approve(ruled.id);
    const auto = await kit.service.create({ workflow: await kit.write('auto.toml', workflow()), cwd: kit.dir, autoApprove: true });
    await kit.runUntilIdle({ agent: agent() });
    for (const id of [ruled.id, auto.id]) {
      expect(await kit.service.get(id)).toMatchObject({ status: 'succeeded', counts: expect.objectContaining({ questionsPending: 0 }) });
      expect(await kit.service.questions(id)).toEqual([]);
    }
  });
});
