/**
 * Agent stages on the real Codex (`@openai/codex`), offline: `codex exec --json` talks to
 * the fake model server's OpenAI Responses endpoint on 127.0.0.1 with a dummy key. A
 * workflow stage calls a tool of an MCP server from the run's `.mcp.json` (the memory
 * server from npm) and Codex's own shell (`exec_command`); the transcript, the output and
 * the approvals are weft's, as for its own agent stages.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bundledCodexBinary } from '../src/agent/cli-backend/codex-adapter.js';
import type { RunEvent } from '../src/runs/model/run-event.js';
import type { ApprovalRule } from '../src/tools/approval-policy.js';
import type { RecordedRequest, ScriptOutcome } from './fixtures/model-server/model-server.js';
import { createEngineKit, type EngineKit } from './kits/engine-kit.js';
import { createClaudeKit, type ClaudeKit } from './kits/cli-backend-kit.js';

const CODEX_BINARY = bundledCodexBinary() ?? 'codex-is-not-installed';
const MEMORY_SERVER = join(process.cwd(), 'node_modules/.bin/mcp-server-memory');

const WORKFLOW = `
[workflow]
name = "cli"
start = "code"

[nodes.code]
kind = "agent"
backend = "cli"
cli = "codex"
model = "openai:gpt-test"
prompt = "Remember the project, then write hello to out.txt."
next = "after"

[nodes.after]
kind = "command"
run = "cat out.txt"
`;

/** The model's script, by how many tool results it has seen: an MCP call (in Codex's `mcp__memory` namespace), a shell command, the answer. */
function codingScript(request: RecordedRequest): ScriptOutcome {
  const results = request.messages.filter((message) => message.role === 'tool');
  if (results.length === 0) {
    return { text: 'I will remember the project first.', toolCalls: [{ name: 'create_entities', namespace: 'mcp__memory', arguments: { entities: [{ name: 'weft', entityType: 'project', observations: ['runs Codex stages'] }] } }] };
  }
  if (results.length === 1) return { toolCalls: [{ name: 'exec_command', arguments: { cmd: 'echo hello > out.txt' } }] };
  return { text: `{"ok": true, "results": ${JSON.stringify(results.map((result) => result.content))}}`, usage: { input: 120, output: 30 } };
}

/** The workflow's Codex stage alone (a command stage would wait for approval without auto_approve). */
const CODEX_ONLY = WORKFLOW.slice(0, WORKFLOW.indexOf('next = "after"'));

function ofType(events: readonly RunEvent[], type: string): RunEvent[] {
  return events.filter((event) => event.type === type);
}

let kit: EngineKit;
let codex: ClaudeKit | undefined;

beforeEach(async () => {
  kit = await createEngineKit();
  await writeFile(join(kit.dir, '.mcp.json'), JSON.stringify({ mcpServers: { memory: { command: MEMORY_SERVER, args: [], env: { MEMORY_FILE_PATH: join(kit.dir, 'memory.json') } } } }));
});

afterEach(async () => {
  await codex?.close();
  codex = undefined;
  await kit.close();
});

async function startCodex(script: (request: RecordedRequest) => ScriptOutcome, rules: ApprovalRule[] = []): Promise<ClaudeKit> {
  // The kit's model server speaks every wire format; Codex finds it through OPENAI_BASE_URL, as the OpenAI SDKs do.
  const started = await createClaudeKit(kit, script, { cli: { codex: { path: CODEX_BINARY } }, rules, env: { OPENAI_API_KEY: 'test-openai-key-0123456789' } });
  started.env.OPENAI_BASE_URL = `${started.server.url}/v1`;
  return started;
}

async function runWorkflow(toml: string, autoApprove: boolean): Promise<{ runId: string; events: RunEvent[] }> {
  const file = await kit.write('wf.toml', toml);
  const created = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove });
  // Without auto_approve a run waits for a person to approve it, which is not what these tests are about.
  if (!autoApprove) await kit.service.approve(created.id);
  await kit.runUntilIdle({ agent: codex!.agent });
  return { runId: created.id, events: await kit.events(created.id) };
}

describe('agent stages on Codex', () => {
  it('runs the stage in the workspace: an MCP tool of the run and its shell, recorded as transcript events; the answer is the output', async () => {
    expect(existsSync(CODEX_BINARY)).toBe(true);
    codex = await startCodex(codingScript);
    const { runId, events } = await runWorkflow(WORKFLOW, true);
    expect((await kit.service.get(runId)).status).toBe('succeeded');

    const started = ofType(events, 'agent-started');
    expect(started).toHaveLength(1);
    expect(started[0]!.payload).toMatchObject({ kind: 'agent', provider: 'Codex', model: 'gpt-test', cli: 'codex', session: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    const finished = ofType(events, 'tool-call-finished').map((event) => ({ tool: event.payload.tool, isError: event.payload.isError }));
    expect(finished).toEqual([
      { tool: 'mcp__memory__create_entities', isError: false },
      { tool: 'exec_command', isError: false },
    ]);
    // The memory server really ran, from the run's .mcp.json; the command really ran in the workspace.
    expect(await readFile(join(kit.dir, 'memory.json'), 'utf8')).toContain('runs Codex stages');
    expect(await readFile(join(kit.dir, 'out.txt'), 'utf8')).toBe('hello\n');

    const stage = ofType(events, 'stage-finished').find((event) => event.stageId === 'code@1')!;
    expect(stage.payload).toMatchObject({ status: 'succeeded', error: null });
    expect(String(stage.payload.output)).toMatch(/^\{"ok": true/);
    expect(ofType(events, 'stage-finished').find((event) => event.stageId === 'after@1')!.payload.output).toBe('hello');

    // Codex was told the model and weft's system prompt, and offered the run tools.
    const first = codex.server.requests[0]!;
    expect(first.model).toBe('gpt-test');
    expect(first.system).toContain("You are running the stage 'code' of the weft workflow 'cli'");
    expect(first.messages.some((message) => message.role === 'user' && message.text.includes('Remember the project, then write hello to out.txt.'))).toBe(true);
    const namespaces = (first.body.tools as { type: string; name?: string; tools?: { name: string }[] }[]).filter((tool) => tool.type === 'namespace').map((tool) => [tool.name, tool.tools!.map((inner) => inner.name).sort()]);
    expect(namespaces).toEqual(expect.arrayContaining([['mcp__weft_run', ['ask_question', 'report_progress']]]));
    // Its config home stayed in the stage's own directory, removed when the stage ended.
    expect(existsSync(join(kit.dir, '.cli-stages', runId, 'code'))).toBe(false);
  });

  it("without auto_approve or rules, Codex gets neither the run's MCP tools nor a shell: the calls are refused and nothing runs", async () => {
    codex = await startCodex(codingScript);
    const { runId, events } = await runWorkflow(CODEX_ONLY, false);
    expect((await kit.service.get(runId)).status).toBe('succeeded');
    expect(ofType(events, 'tool-call-finished')).toEqual([]);
    expect(existsSync(join(kit.dir, 'memory.json'))).toBe(false);
    expect(existsSync(join(kit.dir, 'out.txt'))).toBe(false);
    // What the model was told for each refused call.
    const refusals = codex.server.requests.at(-1)!.messages.filter((message) => message.role === 'tool').map((message) => (message.role === 'tool' ? message.content : ''));
    expect(refusals).toEqual([expect.stringContaining('unsupported call'), expect.stringContaining('unsupported call')]);
  });

  it('with rules allowing the memory server and the shell, Codex may use them without auto_approve', async () => {
    codex = await startCodex(codingScript, [
      { pattern: 'mcp__memory__*', action: 'allow' },
      { pattern: 'shell', action: 'allow' },
      { pattern: 'write_file', action: 'allow' },
      { pattern: 'edit_file', action: 'allow' },
    ]);
    const { runId } = await runWorkflow(CODEX_ONLY, false);
    expect((await kit.service.get(runId)).status).toBe('succeeded');
    expect(await readFile(join(kit.dir, 'out.txt'), 'utf8')).toBe('hello\n');
  });

  it('fails the stage with a login error naming Codex when the key is refused; the exit code and stderr are in the message', async () => {
    codex = await startCodex(() => ({ error: { status: 401, message: 'invalid api key' } }));
    const { runId, events } = await runWorkflow(CODEX_ONLY, true);
    expect((await kit.service.get(runId)).status).toBe('failed');
    const stage = ofType(events, 'stage-finished').find((event) => event.stageId === 'code@1')!;
    expect(String(stage.payload.error)).toMatch(/^Codex needs a login \(exit code 1\): unexpected status 401 Unauthorized: invalid api key/);
  });
});
