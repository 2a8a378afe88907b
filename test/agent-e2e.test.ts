/**
 * End to end: a workflow whose `agent` stage answers JSON, an edge that reads a field of
 * it, and a `prompt` stage on another provider that interpolates it — executed by the
 * engine (and once by the app's own worker, with `[llm]` from a settings file) against
 * the fake model server.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWeftApp } from '../src/app/weft-app.js';
import { createEngineKit, finishedStages, type EngineKit } from './kits/engine-kit.js';
import { agentRunner, llmSettings, runWorkflow, stageFinished, TEST_ENV } from './fixtures/model-server/agent-kit.js';
import { startModelServer, type ModelServer, type RecordedRequest, type ScriptOutcome } from './fixtures/model-server/model-server.js';

const WORKFLOW = `
[workflow]
name = "review"
[run]
model = "smart"
[inputs.file]
default = "notes.txt"

[nodes.review]
kind = "agent"
prompt = "Review {{ inputs.file }}; answer JSON with ok and count."
tools = ["read_file"]
[[nodes.review.edges]]
to = "celebrate"
when = "output.ok == true"
[[nodes.review.edges]]
to = "fix"

[nodes.celebrate]
kind = "prompt"
model = "openai-chat:gpt-test"
prompt = "Write one line celebrating {{ stages.review.output.count }} good notes."

[nodes.fix]
kind = "command"
run = "echo fix"
`;

function script(request: RecordedRequest): ScriptOutcome {
  if (request.api === 'openai-chat') return { text: 'Two good notes, well done!' };
  if (request.messages.length === 1) return { toolCalls: [{ name: 'read_file', arguments: { file_path: 'notes.txt' } }] };
  return { text: '```json\n{"ok": true, "count": 2}\n```' };
}

let kit: EngineKit | undefined;
let server: ModelServer | undefined;
let home: string | undefined;

afterEach(async () => {
  await server?.close();
  await kit?.close();
  if (home) await rm(home, { recursive: true, force: true });
  server = undefined;
  kit = undefined;
  home = undefined;
});

describe('agent workflows end to end', () => {
  it('runs an agent stage whose JSON answer picks the edge and feeds a prompt stage on another provider', async () => {
    server = await startModelServer({ script });
    kit = await createEngineKit();
    await kit.write('notes.txt', 'one\ntwo\n');
    const llm = llmSettings(server, 'openai-chat', {
      aliases: { smart: 'anthropic:claude-test' },
      providers: { anthropic: { baseUrl: server.baseUrl('anthropic') } },
    });
    const { run, events } = await runWorkflow(kit, WORKFLOW, agentRunner(llm));

    expect(run.status).toBe('succeeded');
    expect(finishedStages(events)).toEqual([
      ['review@1', 'succeeded'],
      ['celebrate@1', 'succeeded'],
    ]);
    expect(stageFinished(events, 'review@1')).toMatchObject({ output: '{"ok": true, "count": 2}', next: ['celebrate'] });
    expect(stageFinished(events, 'celebrate@1')?.output).toBe('Two good notes, well done!');
    expect(server.requests.map((request) => [request.api, request.model])).toEqual([
      ['anthropic', 'claude-test'],
      ['anthropic', 'claude-test'],
      ['openai-chat', 'gpt-test'],
    ]);
    expect(server.requests[2]!.messages).toEqual([{ role: 'user', text: 'Write one line celebrating 2 good notes.' }]);
  });

  it("runs through the app's worker with [llm] from the project's settings file", async () => {
    server = await startModelServer({ script: [{ text: 'Hello from the app.' }] });
    home = await mkdtemp(join(tmpdir(), 'weft-agent-app-'));
    const project = join(home, 'project');
    await mkdir(join(project, '.weft'), { recursive: true });
    await writeFile(
      join(project, '.weft', 'settings.toml'),
      `[llm]\nprovider = "anthropic"\nmodel = "claude-app"\nbase_url = "${server.baseUrl('anthropic')}"\n`,
    );
    await writeFile(join(project, 'hello.toml'), '[nodes.hello]\nkind = "prompt"\nprompt = "Say hello."\n');
    // Our own runner executes the run: the app's service must not spawn a detached one.
    const app = await createWeftApp({
      cwd: project,
      storageDir: join(home, 'storage'),
      env: { ...TEST_ENV, PATH: process.env.PATH },
      logLevel: 'error',
      runners: 'in-process',
    });
    try {
      const runs = await app.runs();
      const created = await runs.create({ workflow: join(project, 'hello.toml'), cwd: project, autoApprove: true, start: true });
      const worker = await app.worker({ maxParallel: 1, untilIdle: false });
      const stop = new AbortController();
      const done = worker.run(stop.signal);
      const {
        runs: [finished],
      } = await runs.wait([created.id], 20_000);
      stop.abort();
      await done;
      expect(finished).toMatchObject({ status: 'succeeded' });
      expect(server.requests.map((request) => [request.api, request.model, request.messages])).toEqual([
        ['anthropic', 'claude-app', [{ role: 'user', text: 'Say hello.' }]],
      ]);
    } finally {
      await app.close();
    }
  });
});
