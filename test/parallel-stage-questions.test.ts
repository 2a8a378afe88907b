/**
 * Calls carry their stage: two parallel agent branches (the fake model server scripts
 * them) each call an MCP tool that needs approval. Each question is filed on the branch
 * that asked — in the run's events, over HTTP, in `weft inspect` and in `weft_run_get` —
 * and answering one releases only that branch. Everything real: `weft serve` with its
 * runner, the fixture MCP server from the run's `.mcp.json`, the built CLI, `weft mcp start`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENV } from './fixtures/model-server/agent-kit.js';
import { startModelServer, type ModelServer, type RecordedRequest, type ScriptOutcome } from './fixtures/model-server/model-server.js';
import { REPO_ROOT, runCli } from './helpers/run-cli.js';
import { callApi, readEvents, startServe, type Serve, type SseEvent } from './helpers/serve-kit.js';
import { call, connectStdio } from './helpers/mcp-server-kit.js';

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'servers', 'fixture-server.mjs');

const WORKFLOW = `
[nodes.fan]
kind = "parallel"
branches = ["left", "right"]
join = "done"

[nodes.left]
kind = "agent"
prompt = "Branch left: echo your name."
tools = ["mcp__fixture__echo"]
next = "done"

[nodes.right]
kind = "agent"
prompt = "Branch right: echo your name."
tools = ["mcp__fixture__echo"]
next = "done"

[nodes.done]
kind = "join"
`;

/** Each branch echoes its own name through the MCP tool, then says it is done. */
function script(request: RecordedRequest): ScriptOutcome {
  const first = request.messages[0];
  const branch = first && 'text' in first && first.text.includes('Branch left') ? 'left' : 'right';
  if (!request.messages.some((message) => message.role === 'tool'))
    return { toolCalls: [{ name: 'mcp__fixture__echo', arguments: { message: branch } }] };
  return { text: `${branch} done` };
}

interface QuestionView {
  id: string;
  stage_id?: string;
  stageId?: string;
  prompt: string;
  status?: string;
}

let dir: string;
let model: ModelServer;
let serve: Serve;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'weft-parallel-questions-'));
  model = await startModelServer({ script });
  mkdirSync(join(dir, '.weft'));
  writeFileSync(
    join(dir, '.weft', 'settings.toml'),
    `[llm]\nprovider = "anthropic"\nmodel = "claude-test"\nbase_url = "${model.baseUrl('anthropic')}"\n`,
  );
  writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { fixture: { command: process.execPath, args: [FIXTURE] } } }));
  writeFileSync(join(dir, 'fan.toml'), WORKFLOW);
  serve = await startServe({ dir, env: TEST_ENV });
});

afterAll(async () => {
  await serve?.stop();
  await model?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const answer = await callApi<T>(serve, method, path, body);
  if (answer.status >= 400) throw new Error(`${method} ${path} → ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

const asked = (events: SseEvent[]) => events.filter((event) => event.event === 'question-asked');
const finished = (events: SseEvent[], stageId: string) =>
  events.some((event) => event.event === 'stage-finished' && (event.data as { stage_id?: string }).stage_id === stageId);
const stageOf = (question: QuestionView) => question.stage_id ?? question.stageId;

describe('questions of parallel branches', () => {
  it('lands each approval on the branch that asked, everywhere, and an answer releases only that branch', async () => {
    const { run } = await api<{ run: { id: string } }>('POST', '/runs', { workflow: 'fan.toml' });
    await api('POST', `/runs/${run.id}/approve`);
    const events = await readEvents(serve, run.id, (seen) => asked(seen).length === 2);
    const byStage = Object.fromEntries(asked(events).map((event) => [(event.data as { stage_id?: string }).stage_id, event.data.payload]));
    expect(Object.keys(byStage).sort()).toEqual(['left@1', 'right@1']);
    expect(byStage['left@1']).toMatchObject({ tool: 'mcp__fixture__echo', prompt: expect.stringContaining('"message":"left"') });
    expect(byStage['right@1']).toMatchObject({ tool: 'mcp__fixture__echo', prompt: expect.stringContaining('"message":"right"') });

    const { questions } = await api<{ questions: QuestionView[] }>('GET', `/runs/${run.id}/questions`);
    const placed = (list: QuestionView[]) =>
      Object.fromEntries(list.map((question) => [stageOf(question), question.prompt.includes('"message":"left"') ? 'left' : 'right']));
    expect(placed(questions)).toEqual({ 'left@1': 'left', 'right@1': 'right' });

    const inspected = await runCli(['--storage-dir', serve.storageDir, 'inspect', run.id, '--json'], { cwd: dir, env: TEST_ENV });
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(placed((JSON.parse(inspected.stdout) as { pendingQuestions: QuestionView[] }).pendingQuestions)).toEqual({
      'left@1': 'left',
      'right@1': 'right',
    });

    const client = await connectStdio({ dir, storageDir: serve.storageDir, remove: () => undefined });
    try {
      const got = await call(client, 'weft_run_get', { run_id: run.id });
      expect(got.isError, got.text).toBe(false);
      expect(placed(got.data.pending_questions as QuestionView[])).toEqual({ 'left@1': 'left', 'right@1': 'right' });
    } finally {
      await client.close();
    }

    const left = questions.find((question) => stageOf(question) === 'left@1')!;
    const right = questions.find((question) => stageOf(question) === 'right@1')!;
    await api('POST', `/runs/${run.id}/answer`, { question_id: left.id, answer: true });
    const afterLeft = await readEvents(serve, run.id, (seen) => finished(seen, 'left@1'));
    expect(finished(afterLeft, 'right@1')).toBe(false);
    const pending = await api<{ questions: QuestionView[] }>('GET', `/runs/${run.id}/questions`);
    expect(pending.questions.map((question) => [question.id, stageOf(question)])).toEqual([[right.id, 'right@1']]);
    expect((await api<{ run: { status: string } }>('GET', `/runs/${run.id}`)).run.status).toBe('blocked');

    await api('POST', `/runs/${run.id}/answer`, { question_id: right.id, answer: true });
    const all = await readEvents(serve, run.id, (seen) =>
      seen.some((event) => event.event === 'run-status-changed' && ['succeeded', 'failed'].includes(String(event.data.payload.to))),
    );
    expect(all.filter((event) => event.event === 'run-status-changed').at(-1)?.data.payload.to).toBe('succeeded');
    const echoed = all
      .filter((event) => event.event === 'tool-call-finished')
      .map((event) => [(event.data as { stage_id?: string }).stage_id, event.data.payload.text]);
    expect(echoed.sort()).toEqual([
      ['left@1', expect.stringContaining('left')],
      ['right@1', expect.stringContaining('right')],
    ]);
  });
});
