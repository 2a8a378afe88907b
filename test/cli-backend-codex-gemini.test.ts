/**
 * Agent stages on the real Codex (`@openai/codex`) and Gemini CLI (`@google/gemini-cli`),
 * offline: each talks to the fake model server on 127.0.0.1 with a dummy key — Codex to
 * its OpenAI Responses endpoint (`OPENAI_BASE_URL`, which weft turns into a Codex model
 * provider), Gemini CLI to its Gemini endpoint (`GOOGLE_GEMINI_BASE_URL`). A workflow stage
 * calls a tool of an MCP server from the run's `.mcp.json` (the memory server from npm) and
 * the CLI's own shell; the transcript, the output, the approvals and the errors are weft's,
 * as for its own agent stages. Neither CLI can ask a person, so what weft's rules do not
 * allow is denied up front.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliName } from '../src/agent/cli-backend/cli-adapter.js';
import { bundledCodexBinary } from '../src/agent/cli-backend/codex-adapter.js';
import { bundledGeminiBinary } from '../src/agent/cli-backend/gemini-adapter.js';
import type { RunEvent } from '../src/runs/model/run-event.js';
import type { ApprovalRule } from '../src/tools/approval-policy.js';
import type { RecordedRequest, ScriptedToolCall, ScriptOutcome } from './fixtures/model-server/model-server.js';
import { createClaudeKit, useClaudeTestContext, type ClaudeKit } from './kits/cli-backend-kit.js';

const ENTITY = { name: 'weft', entityType: 'project', observations: ['runs headless CLI stages'] };

/** What differs between the two CLIs: where the model is, what tools are called, what they say. */
interface CliCase {
  cli: CliName;
  displayName: string;
  binary: string | undefined;
  model: string;
  /** Where the CLI asked the fake server for the model. */
  modelPath: string;
  /** The environment pointing the CLI at the fake server. */
  env(serverUrl: string): Record<string, string>;
  memoryCall: ScriptedToolCall;
  shellCall: ScriptedToolCall;
  /** The model calling weft's run-tools `ask_question`. */
  askCall: ScriptedToolCall;
  /** The tool names in weft's transcript. */
  memoryTool: string;
  shellTool: string;
  /** The run tools and the memory tool as the CLI offered them in its first request. */
  offered(request: RecordedRequest): string[];
  offeredRunTools: string[];
  /** What the model was told for a call weft's rules did not allow. */
  refusal: string;
  /** Whether the CLI reports refused calls in its stream (Gemini CLI does; Codex only tells the model). */
  reportsRefusals: boolean;
  loginError: RegExp;
  /** The stage error when the environment has no key at all. */
  noKeyError: RegExp;
}

const CASES: CliCase[] = [
  {
    cli: 'codex',
    displayName: 'Codex',
    binary: bundledCodexBinary(),
    model: 'openai:gpt-test',
    modelPath: '/v1/responses',
    env: (url) => ({ OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: 'test-openai-key-0123456789' }),
    // Codex puts each MCP server's tools in a Responses namespace.
    memoryCall: { name: 'create_entities', namespace: 'mcp__memory', arguments: { entities: [ENTITY] } },
    shellCall: { name: 'exec_command', arguments: { cmd: 'echo hello > out.txt' } },
    askCall: { name: 'ask_question', namespace: 'mcp__weft_run', arguments: { prompt: 'Which colour?' } },
    memoryTool: 'mcp__memory__create_entities',
    shellTool: 'exec_command',
    offered: (request) =>
      (request.body.tools as { type: string; name?: string; tools?: { name: string }[] }[]).flatMap((tool) =>
        tool.type === 'namespace' ? tool.tools!.map((inner) => `${tool.name!}__${inner.name}`) : [tool.name ?? tool.type],
      ),
    offeredRunTools: ['mcp__weft_run__ask_question', 'mcp__weft_run__report_progress'],
    refusal: 'unsupported call',
    reportsRefusals: false,
    loginError: /^Codex needs a login \(exit code 1\): unexpected status 401 Unauthorized: invalid api key/,
    noKeyError: /^Codex needs a login \(exit code 1\): Missing environment variable: `OPENAI_API_KEY`/,
  },
  {
    cli: 'gemini',
    displayName: 'Gemini CLI',
    binary: bundledGeminiBinary(),
    model: 'google:gemini-2.5-flash',
    modelPath: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
    env: (url) => ({ GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: 'test-gemini-key-0123456789' }),
    memoryCall: { name: 'mcp_memory_create_entities', arguments: { entities: [ENTITY] } },
    shellCall: { name: 'run_shell_command', arguments: { command: 'echo hello > out.txt' } },
    askCall: { name: 'mcp_weft_run_ask_question', arguments: { prompt: 'Which colour?' } },
    memoryTool: 'mcp_memory_create_entities',
    shellTool: 'run_shell_command',
    offered: (request) => request.tools.map((tool) => tool.name),
    offeredRunTools: ['mcp_weft_run_ask_question', 'mcp_weft_run_report_progress'],
    refusal: 'not found',
    reportsRefusals: true,
    loginError: /^Gemini CLI needs a login \(exit code \d+\): .*"code":401/,
    noKeyError: /^Gemini CLI needs a login \(exit code 41\)[^]*must specify the GEMINI_API_KEY environment variable/,
  },
];

function workflow(test: CliCase, withCommandStage: boolean): string {
  const stage = `[workflow]\nname = "cli"\nstart = "code"\n\n[nodes.code]\nkind = "agent"\nbackend = "cli"\ncli = "${test.cli}"\nmodel = "${test.model}"\nprompt = "Remember the project, then write hello to out.txt."\n`;
  // A command stage would wait for a person's approval without auto_approve.
  return withCommandStage ? `${stage}next = "after"\n\n[nodes.after]\nkind = "command"\nrun = "cat out.txt"\n` : stage;
}

/** The model's script, by how many tool results it has seen: an MCP call, a shell command, the answer. */
function codingScript(test: CliCase): (request: RecordedRequest) => ScriptOutcome {
  return (request) => {
    const results = request.messages.filter((message) => message.role === 'tool');
    if (results.length === 0) return { text: 'I will remember the project first.', toolCalls: [test.memoryCall] };
    if (results.length === 1) return { toolCalls: [test.shellCall] };
    return {
      text: `{"ok": true, "results": ${JSON.stringify(results.map((result) => result.content))}}`,
      usage: { input: 120, output: 30 },
    };
  };
}

function ofType(events: readonly RunEvent[], type: string): RunEvent[] {
  return events.filter((event) => event.type === type);
}

describe.each(CASES)('agent stages on $displayName', (test) => {
  const context = useClaudeTestContext({ memoryServer: true });

  async function start(
    script: (request: RecordedRequest) => ScriptOutcome,
    rules: ApprovalRule[] = [],
    withoutKey = false,
  ): Promise<ClaudeKit> {
    // The kit's fake model server speaks every wire format; only the environment says which endpoint the CLI uses.
    const started = await createClaudeKit(context.kit, script, { cli: { [test.cli]: { path: test.binary } }, rules });
    const env = test.env(started.server.url);
    context.claude = started;
    Object.assign(started.env, withoutKey ? Object.fromEntries(Object.entries(env).filter(([name]) => !name.endsWith('_KEY'))) : env);
    return started;
  }

  async function runWorkflow(toml: string, autoApprove: boolean): Promise<{ runId: string; events: RunEvent[] }> {
    const file = await context.kit.write('wf.toml', toml);
    const created = await context.kit.service.create({ workflow: file, cwd: context.kit.dir, autoApprove });
    // Without auto_approve a run waits for a person to approve it, which is not what these tests are about.
    if (!autoApprove) await context.kit.service.approve(created.id);
    await context.kit.runUntilIdle({ agent: context.claude!.agent });
    return { runId: created.id, events: await context.kit.events(created.id) };
  }

  it('runs the stage in the workspace: an MCP tool of the run and its shell, recorded as transcript events; the answer is the output', async () => {
    expect(test.binary !== undefined && existsSync(test.binary)).toBe(true);
    const cli = await start(codingScript(test));
    const { runId, events } = await runWorkflow(workflow(test, true), true);
    expect((await context.kit.service.get(runId)).status).toBe('succeeded');

    const started = ofType(events, 'agent-started');
    expect(started).toHaveLength(1);
    expect(started[0]!.payload).toMatchObject({
      kind: 'agent',
      provider: test.displayName,
      model: test.model.split(':')[1],
      cli: test.cli,
    });
    const finished = ofType(events, 'tool-call-finished').map((event) => ({ tool: event.payload.tool, isError: event.payload.isError }));
    expect(finished).toEqual([
      { tool: test.memoryTool, isError: false },
      { tool: test.shellTool, isError: false },
    ]);
    // The memory server really ran, from the run's .mcp.json; the command really ran in the workspace.
    expect(await readFile(join(context.kit.dir, 'memory.json'), 'utf8')).toContain('runs headless CLI stages');
    expect(await readFile(join(context.kit.dir, 'out.txt'), 'utf8')).toBe('hello\n');

    const stage = ofType(events, 'stage-finished').find((event) => event.stageId === 'code@1')!;
    expect(stage.payload).toMatchObject({ status: 'succeeded', error: null });
    expect(JSON.parse(String(stage.payload.output))).toMatchObject({ ok: true });
    expect(ofType(events, 'stage-finished').find((event) => event.stageId === 'after@1')!.payload.output).toBe('hello');

    // The CLI was given weft's system prompt, the task, the run tools (not the permission tool) and the memory server.
    const first = cli.server.requests[0]!;
    expect(first.path).toBe(test.modelPath);
    expect(first.system).toContain("You are running the stage 'code' of the weft workflow 'cli'");
    expect(
      first.messages.some(
        (message) => message.role === 'user' && message.text.includes('Remember the project, then write hello to out.txt.'),
      ),
    ).toBe(true);
    const offered = test.offered(first);
    expect(offered).toEqual(expect.arrayContaining([...test.offeredRunTools, test.memoryTool, test.shellTool]));
    expect(offered.filter((name) => name.includes('approve_tool_call'))).toEqual([]);
    // Its config home stayed in the stage's own directory, removed when the stage ended.
    expect(existsSync(join(context.kit.dir, '.cli-stages', runId, 'code'))).toBe(false);
  });

  it("without auto_approve or rules, the CLI gets neither the run's MCP tools nor a shell: the calls are refused and nothing runs", async () => {
    const cli = await start(codingScript(test));
    const { runId, events } = await runWorkflow(workflow(test, false), false);
    expect((await context.kit.service.get(runId)).status).toBe('succeeded');
    expect(test.offered(cli.server.requests[0]!)).not.toContain(test.shellTool);
    const finished = ofType(events, 'tool-call-finished').map((event) => ({ tool: event.payload.tool, isError: event.payload.isError }));
    expect(finished).toEqual(
      test.reportsRefusals
        ? [
            { tool: test.memoryTool, isError: true },
            { tool: test.shellTool, isError: true },
          ]
        : [],
    );
    expect(existsSync(join(context.kit.dir, 'memory.json'))).toBe(false);
    expect(existsSync(join(context.kit.dir, 'out.txt'))).toBe(false);
    const refusals = cli.server.requests.at(-1)!.messages.flatMap((message) => (message.role === 'tool' ? [message.content] : []));
    expect(refusals).toEqual([expect.stringContaining(test.refusal), expect.stringContaining(test.refusal)]);
  });

  it("with rules allowing the memory server and weft's shell and file edits, the CLI uses them without auto_approve", async () => {
    const rules: ApprovalRule[] = ['mcp__memory__*', 'shell', 'write_file', 'edit_file'].map((pattern) => ({ pattern, action: 'allow' }));
    await start(codingScript(test), rules);
    const { runId } = await runWorkflow(workflow(test, false), false);
    expect((await context.kit.service.get(runId)).status).toBe('succeeded');
    expect(await readFile(join(context.kit.dir, 'memory.json'), 'utf8')).toContain('runs headless CLI stages');
    expect(await readFile(join(context.kit.dir, 'out.txt'), 'utf8')).toBe('hello\n');
  });

  it('fails the stage with a login error naming the CLI when the key is refused; the exit code and stderr are in the message', async () => {
    await start(() => ({ error: { status: 401, message: 'invalid api key' } }));
    const { runId, events } = await runWorkflow(workflow(test, false), true);
    expect((await context.kit.service.get(runId)).status).toBe('failed');
    const error = String(ofType(events, 'stage-finished').find((event) => event.stageId === 'code@1')!.payload.error);
    expect(error).toMatch(test.loginError);
    expect(error).toContain('Last lines of its stderr:');
  });

  it('fails the stage with a login error naming the CLI when the environment has no key, before any model call', async () => {
    const cli = await start(() => ({ text: 'unreachable' }), [], true);
    const { runId, events } = await runWorkflow(workflow(test, false), true);
    expect((await context.kit.service.get(runId)).status).toBe('failed');
    expect(String(ofType(events, 'stage-finished').find((event) => event.stageId === 'code@1')!.payload.error)).toMatch(test.noKeyError);
    expect(cli.server.requests).toEqual([]);
  });

  it("serves the run tools: the CLI's question becomes a run question, and the person's answer goes back to it", async () => {
    const cli = await start((request) => {
      const result = request.messages.find((message) => message.role === 'tool');
      return result?.role === 'tool' ? { text: `The person said: ${result.content}` } : { toolCalls: [test.askCall] };
    });
    const created = await context.kit.service.create({
      workflow: await context.kit.write('wf.toml', workflow(test, false)),
      cwd: context.kit.dir,
      autoApprove: false,
    });
    await context.kit.service.approve(created.id);
    const worker = context.kit.startWorker({ agent: cli.agent });
    try {
      await context.kit.until(created.id, (run) => run.status === 'blocked', 'blocked on the question');
      const [question, ...others] = await context.kit.service.questions(created.id, true);
      expect(others).toEqual([]);
      expect(question).toMatchObject({ kind: 'freeform', stageId: 'code@1', prompt: 'Which colour?' });
      await context.kit.service.answer(created.id, question!.id, 'blue');
      await context.kit.until(created.id, (run) => run.status === 'succeeded', 'succeeded');
    } finally {
      await worker.stop();
    }
    const stage = ofType(await context.kit.events(created.id), 'stage-finished').find((event) => event.stageId === 'code@1')!;
    expect(stage.payload.output).toMatch(/^The person said: [^]*blue/);
  });

  it('fails the stage when the model call fails: the error names the CLI, its exit code and what it reported', async () => {
    await start(() => ({ error: { status: 400, message: 'model-server: no such model' } }));
    const { runId, events } = await runWorkflow(workflow(test, false), true);
    expect((await context.kit.service.get(runId)).status).toBe('failed');
    const error = String(ofType(events, 'stage-finished').find((event) => event.stageId === 'code@1')!.payload.error);
    expect(error).toMatch(new RegExp(`^${test.displayName} failed \\(exit code [1-9]\\d*\\): [^]*no such model`));
    expect(error).not.toMatch(/needs a login/);
  });
});
