/**
 * weft's approval rules hold for a Claude Code stage as for its own agent stages: a call
 * no rule decides becomes a run question (through Claude Code's permission prompt tool
 * on weft's run-tools MCP server) and runs only if a person allows it; a deny rule
 * (written for weft's `shell`) keeps Claude Code from running Bash at all; and the agent
 * can ask the person a question and report progress through the same server.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClaudeKit, useClaudeTestContext } from './kits/cli-backend-kit.js';
import type { RecordedRequest, ScriptOutcome } from './fixtures/model-server/model-server.js';
import type { QuestionRecord } from '../src/runs/model/question.js';
import type { JsonValue } from '../src/runs/model/json.js';

const workflow = (approval: string) => `
[workflow]
name = "approvals"
start = "code"

[run]
approval = [${approval}]

[nodes.code]
kind = "agent"
backend = "cli"
cli = "claude"
prompt = "Remember, write, ask, report."
`;

/** One call per turn, in this order, then the answer. */
const CALLS = [
  { name: 'mcp__memory__create_entities', arguments: { entities: [{ name: 'weft', entityType: 'project', observations: ['x'] }] } },
  { name: 'Bash', arguments: { command: 'touch bash-ran.txt', description: 'Touch' } },
  { name: 'mcp__weft_run__ask_question', arguments: { prompt: 'Which colour?' } },
  { name: 'mcp__weft_run__report_progress', arguments: { message: 'half way there' } },
];

function script(request: RecordedRequest): ScriptOutcome {
  const results = request.messages.filter((message) => message.role === 'tool').length;
  const call = CALLS[results];
  return call ? { toolCalls: [call] } : { text: 'all done' };
}

const context = useClaudeTestContext({ memoryServer: true });

/** Answers the run's questions as they come, in order, with `answers`; returns them as asked. */
async function answerQuestions(runId: string, answers: JsonValue[]): Promise<QuestionRecord[]> {
  const asked: QuestionRecord[] = [];
  for (const answer of answers) {
    const question = await pendingQuestion(runId, asked);
    asked.push(question);
    await context.kit.service.answer(runId, question.id, answer);
  }
  return asked;
}

async function pendingQuestion(runId: string, seen: readonly QuestionRecord[]): Promise<QuestionRecord> {
  const deadline = Date.now() + 30_000;
  // Watching starts before the first read, so a question asked in between wakes the wait.
  const changes = context.kit.service.changes([runId]);
  try {
    for (;;) {
      const pending = (await context.kit.service.questions(runId, true)).find((question) => !seen.some((old) => old.id === question.id));
      if (pending) return pending;
      const run = await context.kit.service.get(runId);
      if (['succeeded', 'failed', 'cancelled'].includes(run.status) || Date.now() > deadline)
        throw new Error(`no question came; the run is ${run.status}`);
      await changes.next(deadline - Date.now());
    }
  } finally {
    changes.close();
  }
}

describe('approvals on a Claude Code stage', () => {
  it('asks a person for every call no rule decides, runs only what they allow, and serves the agent’s own questions and progress', async () => {
    context.claude = await createClaudeKit(context.kit, script);
    const file = await context.kit.write('wf.toml', workflow(''));
    const created = await context.kit.service.create({ workflow: file, cwd: context.kit.dir, autoApprove: false });
    await context.kit.service.approve(created.id);
    const worker = context.kit.startWorker({ agent: context.claude!.agent });
    const asked = await answerQuestions(created.id, [true, false, 'blue']);
    const run = await context.kit.until(created.id, (item) => item.status === 'succeeded' || item.status === 'failed', 'finished');
    await worker.stop();

    expect(asked.map((question) => ({ kind: question.kind, prompt: question.prompt.slice(0, 40), stageId: question.stageId }))).toEqual([
      { kind: 'confirmation', prompt: 'Allow mcp__memory__create_entities with ', stageId: 'code@1' },
      { kind: 'confirmation', prompt: 'Allow Bash with these arguments? {"comma', stageId: 'code@1' },
      { kind: 'freeform', prompt: 'Which colour?', stageId: 'code@1' },
    ]);
    expect(run.status).toBe('succeeded');
    const events = await context.kit.events(created.id);
    const results = events
      .filter((event) => event.type === 'tool-call-finished')
      .map((event) => ({ tool: event.payload.tool, isError: event.payload.isError, text: String(event.payload.text).slice(0, 60) }));
    expect(results).toEqual([
      { tool: 'mcp__memory__create_entities', isError: false, text: expect.stringContaining('"name":"weft"') },
      { tool: 'Bash', isError: true, text: expect.stringContaining('A person running the workflow declined Bash.') },
      { tool: 'mcp__weft_run__ask_question', isError: false, text: 'blue' },
      { tool: 'mcp__weft_run__report_progress', isError: false, text: 'noted' },
    ]);
    expect(existsSync(join(context.kit.dir, 'memory.json'))).toBe(true);
    expect(existsSync(join(context.kit.dir, 'bash-ran.txt'))).toBe(false);
    expect(events.filter((event) => event.type === 'stage-output').map((event) => event.payload)).toEqual([{ progress: 'half way there' }]);
    expect(events.find((event) => event.type === 'stage-finished')!.payload.output).toBe('all done');
  });

  it('a deny rule for weft’s shell keeps Claude Code from running Bash, without asking anyone', async () => {
    context.claude = await createClaudeKit(context.kit, script);
    const file = await context.kit.write(
      'wf.toml',
      workflow('{ pattern = "shell", action = "deny" }, { pattern = "mcp__*", action = "allow" }'),
    );
    const created = await context.kit.service.create({ workflow: file, cwd: context.kit.dir, autoApprove: false });
    await context.kit.service.approve(created.id);
    const worker = context.kit.startWorker({ agent: context.claude!.agent });
    const asked = await answerQuestions(created.id, ['red']);
    const run = await context.kit.until(created.id, (item) => item.status === 'succeeded' || item.status === 'failed', 'finished');
    await worker.stop();

    expect(asked.map((question) => question.prompt)).toEqual(['Which colour?']);
    expect(run.status).toBe('succeeded');
    const bash = (await context.kit.events(created.id)).find(
      (event) => event.type === 'tool-call-finished' && event.payload.tool === 'Bash',
    )!;
    expect(bash.payload.isError).toBe(true);
    expect(existsSync(join(context.kit.dir, 'bash-ran.txt'))).toBe(false);
  });
});
