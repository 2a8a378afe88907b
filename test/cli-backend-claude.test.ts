/**
 * Agent stages on the real Claude Code (`@anthropic-ai/claude-code`), offline: it talks to
 * the fake model server on 127.0.0.1 with a dummy key. A workflow stage calls a tool of an
 * MCP server from the run's `.mcp.json` (the memory server from npm) and one of Claude
 * Code's own built-ins (Bash); the transcript, the output, the approvals and the errors are
 * weft's, as for its own agent stages.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAUDE_BINARY, createClaudeKit, useClaudeTestContext } from './kits/cli-backend-kit.js';
import { until } from './fixtures/workflows-e2e/harness.js';
import { groupAlive } from '../src/core/process-group.js';
import { markedProcesses } from '../src/core/marked-processes.js';
import type { RecordedRequest, ScriptOutcome } from './fixtures/model-server/model-server.js';
import type { RunEvent } from '../src/runs/model/run-event.js';

const WORKFLOW = `
[workflow]
name = "cli"
start = "code"

[nodes.code]
kind = "agent"
backend = "cli"
cli = "claude"
model = "anthropic:claude-test"
max_turns = 6
prompt = "Remember the project, then write hello to out.txt."
next = "after"

[nodes.after]
kind = "command"
run = "cat out.txt"
`;

/** The model's script: an MCP call, a built-in call, then the answer (by how many tool results it has seen). */
function codingScript(request: RecordedRequest): ScriptOutcome {
  const results = request.messages.filter((message) => message.role === 'tool').length;
  if (results === 0)
    return {
      text: 'I will remember the project first.',
      toolCalls: [
        {
          name: 'mcp__memory__create_entities',
          arguments: { entities: [{ name: 'weft', entityType: 'project', observations: ['runs Claude Code stages'] }] },
        },
      ],
    };
  if (results === 1) return { toolCalls: [{ name: 'Bash', arguments: { command: 'echo hello > out.txt', description: 'Write hello' } }] };
  return { text: '```json\n{"ok": true, "file": "out.txt"}\n```', usage: { input: 120, output: 30 } };
}

function ofType(events: readonly RunEvent[], type: string): RunEvent[] {
  return events.filter((event) => event.type === type);
}

const context = useClaudeTestContext({ memoryServer: true });

async function runWorkflow(toml: string, autoApprove: boolean): Promise<{ runId: string; events: RunEvent[] }> {
  const file = await context.kit.write('wf.toml', toml);
  const created = await context.kit.service.create({ workflow: file, cwd: context.kit.dir, autoApprove });
  await context.kit.runUntilIdle({ agent: context.claude!.agent });
  return { runId: created.id, events: await context.kit.events(created.id) };
}

describe('agent stages on Claude Code', () => {
  it('runs the stage in the workspace: an MCP tool of the run and a built-in, recorded as transcript events; the answer is the output', async () => {
    expect(existsSync(CLAUDE_BINARY)).toBe(true);
    context.claude = await createClaudeKit(context.kit, codingScript);
    const { runId, events } = await runWorkflow(WORKFLOW, true);
    const run = await context.kit.service.get(runId);
    expect(run.status).toBe('succeeded');

    const started = ofType(events, 'agent-started');
    expect(started).toHaveLength(1);
    expect(started[0]!.payload).toMatchObject({
      kind: 'agent',
      provider: 'Claude Code',
      model: 'claude-test',
      cli: 'claude',
      maxTurns: 6,
      session: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(started[0]!.payload.tools).toEqual(
      expect.arrayContaining(['Bash', 'mcp__memory__create_entities', 'mcp__weft_run__ask_question']),
    );

    const turns = ofType(events, 'model-turn-finished').map((event) => ({
      turn: event.payload.turn,
      text: event.payload.text,
      tools: (event.payload.toolCalls as { tool: string }[]).map((call) => call.tool),
    }));
    expect(turns).toEqual([
      { turn: 1, text: 'I will remember the project first.', tools: ['mcp__memory__create_entities'] },
      { turn: 2, text: '', tools: ['Bash'] },
      { turn: 3, text: '```json\n{"ok": true, "file": "out.txt"}\n```', tools: [] },
    ]);
    const finished = ofType(events, 'tool-call-finished').map((event) => ({
      tool: event.payload.tool,
      turn: event.payload.turn,
      isError: event.payload.isError,
    }));
    expect(finished).toEqual([
      { tool: 'mcp__memory__create_entities', turn: 1, isError: false },
      { tool: 'Bash', turn: 2, isError: false },
    ]);
    // The memory server really ran, from the run's .mcp.json; Bash really ran in the workspace.
    expect(await readFile(join(context.kit.dir, 'memory.json'), 'utf8')).toContain('runs Claude Code stages');
    expect(await readFile(join(context.kit.dir, 'out.txt'), 'utf8')).toBe('hello\n');

    // The turns add up to what Claude Code reported for the session, cost included.
    const usage = ofType(events, 'model-turn-finished').map(
      (event) => event.payload.usage as { inputTokens: number; outputTokens: number; reportedCostUsd?: number },
    );
    expect(usage.reduce((sum, item) => sum + item.outputTokens, 0)).toBeGreaterThanOrEqual(30);
    expect(usage.at(-1)!.reportedCostUsd).toBeGreaterThan(0);

    const stage = ofType(events, 'stage-finished').find((event) => event.stageId === 'code@1')!;
    expect(stage.payload).toMatchObject({ status: 'succeeded', output: '{"ok": true, "file": "out.txt"}', error: null });
    expect(ofType(events, 'stage-process-started').map((event) => event.stageId)).toEqual(['code@1', 'after@1']);
    expect(ofType(events, 'stage-finished').find((event) => event.stageId === 'after@1')!.payload.output).toBe('hello');

    // Claude Code was told the model, the turn limit and weft's system prompt; it never reached past 127.0.0.1.
    const first = context.claude!.server.requests[0]!;
    expect(first.model).toBe('claude-test');
    expect(first.system).toContain("You are running the stage 'code' of the weft workflow 'cli'");
    expect(
      first.messages.some(
        (message) => message.role === 'user' && message.text.includes('Remember the project, then write hello to out.txt.'),
      ),
    ).toBe(true);
    // Its config stayed in the stage's own directory, removed (with the run's) when the stage ended.
    expect(existsSync(join(context.kit.dir, '.cli-stages'))).toBe(true);
    expect(existsSync(join(context.kit.dir, '.cli-stages', runId))).toBe(false);
  });
});

describe('cancelling a Claude Code stage', () => {
  it('ends Claude Code, the MCP server it started and the shell command it runs in a session of its own', async () => {
    const hold = 'echo $$ > hold.pid; while true; do sleep 0.1; done';
    context.claude = await createClaudeKit(context.kit, () => ({
      toolCalls: [{ name: 'Bash', arguments: { command: hold, description: 'Hold' } }],
    }));
    const file = await context.kit.write(
      'wf.toml',
      WORKFLOW.replace('[nodes.code]', '[run]\napproval = [{ pattern = "shell", action = "allow" }]\n\n[nodes.code]'),
    );
    const created = await context.kit.service.create({ workflow: file, cwd: context.kit.dir, autoApprove: true });
    const worker = context.kit.startWorker({ agent: context.claude.agent });
    const marker = `${created.id}/code@1`;
    const holdPid = await until(
      'the shell command to run',
      async () => Number((await readFile(join(context.kit.dir, 'hold.pid'), 'utf8').catch(() => '')).trim()) || undefined,
    );
    const group = Number((await context.kit.events(created.id)).find((event) => event.type === 'stage-process-started')!.payload.pgid);
    expect(groupAlive(group)).toBe(true);
    expect(await markedProcesses(marker)).toContain(holdPid);

    await context.kit.service.cancel(created.id, 'test');
    const run = await context.kit.until(created.id, (item) => item.status === 'cancelled', 'cancelled');
    await worker.stop();
    expect(run.status).toBe('cancelled');
    expect(groupAlive(group)).toBe(false);
    expect(await markedProcesses(marker)).toEqual([]);
    expect((await context.kit.events(created.id)).find((event) => event.type === 'stage-finished')!.payload).toMatchObject({
      status: 'cancelled',
    });
  });
});
