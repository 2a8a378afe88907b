/**
 * The MCP bridges in runs, against the real server-everything and the fake model server:
 * sampling answered by the run's model (on, off, denied, asked), elicitation as a run
 * question (accepted through the RunService, declined through `weft answer`), images in
 * tool results reaching the model per wire API, the run's directory as the one root, and
 * `weft tools call` declining elicitation without a terminal.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWeftApp, type WeftApp } from '../src/app/weft-app.js';
import type { Worker } from '../src/runs/engine/worker.js';
import type { QuestionRecord } from '../src/runs/model/question.js';
import type { RunEvent } from '../src/runs/model/run-event.js';
import { isTerminal } from '../src/runs/model/run-status.js';
import type { RunRecord } from '../src/runs/model/run-record.js';
import type { RunService } from '../src/app/services/run-service.js';
import { eventLine } from '../src/surfaces/cli/event-lines.js';
import { SHAPES, TEST_ENV } from './fixtures/model-server/agent-kit.js';
import {
  startModelServer,
  type ApiShape,
  type ModelServer,
  type RecordedRequest,
  type ScriptOutcome,
} from './fixtures/model-server/model-server.js';
import { EVERYTHING } from './fixtures/servers/hub-kit.js';
import { runCli } from './helpers/run-cli.js';

const SAMPLING_SYSTEM = 'You are a helpful test server.';
const TINY_IMAGE_TOOL = 'mcp__everything__get-tiny-image';

/** server-everything's sampling tool sends this system prompt; the image tool is offered to agents. */
/** Sampling requests whose prompt says 'busy' get one 503 first (the retry test). */
const busyAnswered = new Set<string>();

function script(request: RecordedRequest): ScriptOutcome {
  const said = request.messages.map((message) => ('text' in message ? message.text : '')).join('\n');
  if (request.system === SAMPLING_SYSTEM && said.includes('busy') && !busyAnswered.has(said)) {
    busyAnswered.add(said);
    return { error: { status: 503, message: 'overloaded', headers: { 'retry-after-ms': '0' } } };
  }
  if (request.system === SAMPLING_SYSTEM) return { text: 'sampled hello', usage: { input: 12, output: 3 } };
  const offersImageTool = request.tools.some((tool) => tool.name === TINY_IMAGE_TOOL);
  if (offersImageTool && !request.messages.some((message) => message.role === 'tool')) return { toolCalls: [{ name: TINY_IMAGE_TOOL }] };
  return { text: 'done' };
}

function mcpServer(name: string, sampling: boolean): string {
  return `[run.agent.mcps.${name}]\ncommand = [${JSON.stringify(process.execPath)}, ${JSON.stringify(EVERYTHING)}, "stdio"]\nsampling = ${sampling}\n`;
}

function toolWorkflow(tool: string, args: Record<string, unknown>, extra = ''): string {
  return `${extra}\n${mcpServer('everything', true)}${mcpServer('plain', false)}\n[nodes.call]\nkind = "tool"\ntool = "${tool}"\nargs = ${tomlInline(args)}\n`;
}

function tomlInline(args: Record<string, unknown>): string {
  return `{ ${Object.entries(args)
    .map(([key, value]) => `${key} = ${JSON.stringify(value)}`)
    .join(', ')} }`;
}

let server: ModelServer;
let base: string;
let project: string;
let storageDir: string;
let app: WeftApp;
let runs: RunService;
let worker: Worker;
let stopWorker: AbortController;
let workerDone: Promise<void>;
let counter = 0;

beforeAll(async () => {
  server = await startModelServer({ script });
  base = await mkdtemp(join(tmpdir(), 'weft-bridges-'));
  project = join(base, 'project');
  storageDir = join(base, 'home');
  await mkdir(join(project, '.weft'), { recursive: true });
  const providers = SHAPES.map(({ shape, provider }) => `[llm.providers.${provider}]\nbase_url = "${server.baseUrl(shape)}"\n`).join('\n');
  await writeFile(
    join(project, '.weft', 'settings.toml'),
    `[llm]\nprovider = "anthropic"\nmodel = "claude-sampler"\nstream = false\n\n${providers}`,
  );
  // Our own runner executes the runs (claiming them on the store's change notices): the app's service must not spawn a detached one.
  app = await createWeftApp({
    cwd: project,
    storageDir,
    env: { ...TEST_ENV, PATH: process.env.PATH },
    logLevel: 'error',
    runners: 'in-process',
  });
  runs = await app.runs();
  worker = await app.worker({ maxParallel: 4, untilIdle: false });
  stopWorker = new AbortController();
  workerDone = worker.run(stopWorker.signal);
});

afterAll(async () => {
  stopWorker?.abort();
  await workerDone;
  await app?.close();
  await server?.close();
  if (base) await rm(base, { recursive: true, force: true });
});

async function startRun(toml: string, fields: { autoApprove?: boolean; model?: string } = {}): Promise<string> {
  counter += 1;
  const file = join(project, `wf-${counter}.toml`);
  await writeFile(file, toml);
  const created = await runs.create({
    workflow: file,
    cwd: project,
    autoApprove: fields.autoApprove ?? true,
    ...(fields.model ? { model: fields.model } : {}),
  });
  if (created.status === 'pending') await runs.approve(created.id);
  return created.id;
}

/** Reads the run again each time the store changes, until `predicate` holds. */
async function until(id: string, predicate: (run: RunRecord) => boolean, what: string, timeoutMs = 30_000): Promise<RunRecord> {
  const deadline = Date.now() + timeoutMs;
  const changes = runs.changes();
  try {
    for (;;) {
      const run = await runs.get(id);
      if (predicate(run)) return run;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; run is ${run.status}${run.reason ? ` (${run.reason})` : ''}`);
      await changes.next(deadline - Date.now());
    }
  } finally {
    changes.close();
  }
}

async function finished(id: string): Promise<{ run: RunRecord; events: RunEvent[] }> {
  const run = await until(id, (current) => isTerminal(current.status), 'the run to end');
  return { run, events: await runs.events(id) };
}

async function pendingQuestion(id: string): Promise<QuestionRecord> {
  await until(id, (run) => run.status === 'blocked' && run.counts.questionsPending > 0, 'a question');
  const [question] = await runs.questions(id, true);
  return question!;
}

function stageOutput(events: readonly RunEvent[]): string {
  const output = events.find((event) => event.type === 'stage-finished')?.payload.output;
  return typeof output === 'string' ? output : JSON.stringify(output);
}

function payloads(events: readonly RunEvent[], type: string): RunEvent['payload'][] {
  return events.filter((event) => event.type === type).map((event) => event.payload);
}

describe('sampling in runs', () => {
  it("answers a server's sampling request with the run's model and records it", async () => {
    const before = server.requests.length;
    const id = await startRun(toolWorkflow('mcp__everything__trigger-sampling-request', { prompt: 'say hi', maxTokens: 10 }));
    const { run, events } = await finished(id);

    expect(run.status).toBe('succeeded');
    expect(stageOutput(events)).toContain('sampled hello');
    const [request] = server.requests.slice(before);
    expect(request).toMatchObject({
      api: 'anthropic',
      model: 'claude-sampler',
      system: SAMPLING_SYSTEM,
      maxOutputTokens: 10,
      messages: [{ role: 'user', text: 'Resource trigger-sampling-request context: say hi' }],
    });
    expect(payloads(events, 'sampling-requested')).toEqual([
      { server: 'everything', provider: 'anthropic', model: 'claude-sampler', maxTokens: 10, messages: 1, systemPrompt: true },
    ]);
    // The Anthropic package reports cache reads and writes (0 here), so the usage carries them; no price table knows 'claude-sampler'.
    expect(payloads(events, 'sampling-finished')).toEqual([
      {
        server: 'everything',
        provider: 'anthropic',
        model: 'claude-sampler',
        usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15, cachedInputTokens: 0, cacheWriteTokens: 0, unpricedTurns: 1 },
        stopReason: 'endTurn',
        durationMs: expect.any(Number),
        text: 'sampled hello',
      },
    ]);
    expect(events.find((event) => event.type === 'sampling-finished')?.stageId).toBe('call@1');
  });

  it('records each retry of the model request, as an agent turn does', async () => {
    const id = await startRun(toolWorkflow('mcp__everything__trigger-sampling-request', { prompt: 'busy now', maxTokens: 10 }));
    const { run, events } = await finished(id);
    expect(run.status).toBe('succeeded');
    expect(stageOutput(events)).toContain('sampled hello');
    expect(payloads(events, 'sampling-request-retried')).toEqual([
      {
        server: 'everything',
        provider: 'anthropic',
        model: 'claude-sampler',
        attempt: 1,
        maxRetries: expect.any(Number),
        delayMs: 0,
        status: 503,
        error: expect.stringContaining('503'),
      },
    ]);
    const order = events.map((event) => event.type).filter((type) => type.startsWith('sampling-'));
    expect(order).toEqual(['sampling-requested', 'sampling-request-retried', 'sampling-finished']);
    const retried = events.find((event) => event.type === 'sampling-request-retried')!;
    expect(retried.stageId).toBe('call@1');
    // `weft run` and `weft logs` show it as a line.
    expect(eventLine(retried)).toMatch(/^ {2}↻ model request for everything's sampling failed \(503: overloaded\); retry 1 of \d+ in 0ms$/);
  });

  it('uses the model the run was created with', async () => {
    const before = server.requests.length;
    const id = await startRun(toolWorkflow('mcp__everything__trigger-sampling-request', { prompt: 'again', maxTokens: 5 }), {
      model: 'openai-chat:gpt-sampler',
    });
    const { run } = await finished(id);
    expect(run.status).toBe('succeeded');
    expect(server.requests.slice(before).map((request) => [request.api, request.model])).toEqual([['openai-chat', 'gpt-sampler']]);
  });

  it('refuses a server whose config leaves sampling off, naming the setting', async () => {
    const before = server.requests.length;
    const id = await startRun(toolWorkflow('mcp__plain__trigger-sampling-request', { prompt: 'say hi', maxTokens: 10 }));
    const { run, events } = await finished(id);
    expect(run.status).toBe('failed');
    expect(stageOutput(events)).toContain("sampling is off for MCP server 'plain'; set sampling = true in its entry in");
    expect(server.requests.length).toBe(before);
    expect(payloads(events, 'sampling-requested')).toEqual([]);
  });

  it('refuses sampling that a deny rule for mcp__<server>__sampling matches', async () => {
    const rules = '[run]\napproval = [ { pattern = "mcp__everything__sampling", action = "deny" } ]\n';
    const before = server.requests.length;
    const id = await startRun(toolWorkflow('mcp__everything__trigger-sampling-request', { prompt: 'say hi', maxTokens: 10 }, rules));
    const { run, events } = await finished(id);
    expect(run.status).toBe('failed');
    expect(stageOutput(events)).toContain(
      "sampling by MCP server 'everything' was denied by the approval policy (rule 'mcp__everything__sampling' = deny)",
    );
    expect(server.requests.length).toBe(before);
  });

  it('an ask rule becomes a confirmation question; yes lets the model answer', async () => {
    const rules = '[run]\napproval = [ { pattern = "mcp__everything__sampling", action = "ask" } ]\n';
    const id = await startRun(toolWorkflow('mcp__everything__trigger-sampling-request', { prompt: 'may I', maxTokens: 10 }, rules));
    const question = await pendingQuestion(id);
    expect(question).toMatchObject({ kind: 'confirmation', stageId: 'call@1' });
    expect(question.prompt).toBe(
      `Allow MCP server 'everything' to use the model anthropic:claude-sampler (up to 10 tokens)? Its request: "Resource trigger-sampling-request context: may I"`,
    );
    await runs.answerText(id, question.id, 'yes');
    const { run, events } = await finished(id);
    expect(run.status).toBe('succeeded');
    expect(stageOutput(events)).toContain('sampled hello');
  });
});

describe('elicitation in runs', () => {
  it('becomes a question whose schema checks answers; the accepted answer (with defaults) reaches the server', async () => {
    const id = await startRun(toolWorkflow('mcp__everything__trigger-elicitation-request', {}));
    const question = await pendingQuestion(id);
    expect(question).toMatchObject({ kind: 'freeform', stageId: 'call@1', alternatives: ['decline', 'cancel'] });
    expect(question.prompt).toContain('[everything] Please provide inputs for the following fields:');
    expect(question.prompt).toContain('name (string; required): Your full, legal name');

    await expect(runs.answerText(id, question.id, '{"check": true}')).rejects.toThrow(/name: is required/);
    await expect(runs.answerText(id, question.id, '{"name": "Ada", "email": "not-an-email"}')).rejects.toThrow(
      /\/email: must match format "email"/,
    );
    await runs.answerText(id, question.id, '{"name": "Ada Lovelace", "check": true}');

    const { run, events } = await finished(id);
    expect(run.status).toBe('succeeded');
    const output = stageOutput(events);
    expect(output).toContain('- Name: Ada Lovelace');
    expect(output).toContain('- Agreed to terms: true');
    expect(output).toContain('- Favorite Integer: 42');
    expect(output).toContain('"action": "accept"');
  });

  it('declining through `weft answer` sends decline', async () => {
    const id = await startRun(toolWorkflow('mcp__everything__trigger-elicitation-request', {}));
    const question = await pendingQuestion(id);
    const answered = await runCli(['--storage-dir', storageDir, 'answer', id, question.id, 'decline'], { cwd: project });
    expect(answered).toMatchObject({ code: 0, stdout: `Answered ${question.id}: "decline"\n` });
    const { run, events } = await finished(id);
    expect(run.status).toBe('succeeded');
    expect(stageOutput(events)).toContain('User declined to provide the requested information.');
  });
  it('goes on the stage whose call the server serves, not on a parallel branch started after it', async () => {
    const fan =
      '[nodes.fan]\nkind = "parallel"\nbranches = ["call", "hold"]\njoin = "done"\n\n[nodes.hold]\nkind = "human"\nquestion = "Hold on?"\ntype = "yes_no"\nnext = "done"\n\n[nodes.done]\nkind = "join"\n';
    const id = await startRun(
      `${toolWorkflow('mcp__everything__trigger-elicitation-request', {}).replace('[nodes.call]', `${fan}\n[nodes.call]`)}next = "done"\n`,
    );
    await until(id, (run) => run.counts.questionsPending === 2, 'both questions');
    const questions = await runs.questions(id, true);
    expect(questions.map((question) => [question.stageId, question.kind]).sort()).toEqual([
      ['call@1', 'freeform'],
      ['hold@1', 'yes_no'],
    ]);
    const elicited = questions.find((question) => question.stageId === 'call@1')!;
    await runs.answerText(id, elicited.id, 'decline');
    await until(id, (run) => run.counts.questionsPending === 1 && run.status === 'blocked', 'the elicitation answered');
    const held = await runs.questions(id, true);
    expect(held.map((question) => question.stageId)).toEqual(['hold@1']);
    await runs.answer(id, held[0]!.id, true);
    const { run, events } = await finished(id);
    expect(run.status).toBe('succeeded');
    expect(
      events
        .filter((event) => event.type === 'stage-finished')
        .map((event) => event.stageId)
        .sort(),
    ).toEqual(['call@1', 'done@1', 'fan@1', 'hold@1']);
  });
});

describe('roots in runs', () => {
  it("offers the run's directory as the one root", async () => {
    const id = await startRun(toolWorkflow('mcp__everything__get-roots-list', {}));
    const { run, events } = await finished(id);
    expect(run.status).toBe('succeeded');
    expect(stageOutput(events)).toContain(pathToFileURL(project).href);
  });
});

describe('images in tool results', () => {
  const agentWorkflow = (model: string) =>
    `[run]\nmodel = "${model}"\n${mcpServer('everything', false)}\n[nodes.look]\nkind = "agent"\nprompt = "Look at the image."\ntools = ["${TINY_IMAGE_TOOL}"]\n`;
  let tinyImage: string;

  beforeAll(async () => {
    ({ MCP_TINY_IMAGE: tinyImage } = (await import(pathToFileURL(join(EVERYTHING, '..', 'tools', 'get-tiny-image.js')).href)) as {
      MCP_TINY_IMAGE: string;
    });
  });

  const accepting: ApiShape[] = ['anthropic', 'openai-responses', 'gemini'];
  for (const { shape, provider } of SHAPES) {
    const accepts = accepting.includes(shape);
    it(`${shape}: the image reaches the model ${accepts ? 'as an image' : 'as [image content]'}`, async () => {
      const before = server.requests.length;
      const id = await startRun(agentWorkflow(`${provider}:vision-test`));
      const { run, events } = await finished(id);
      expect(run.status).toBe('succeeded');
      const requests = server.requests.slice(before);
      expect(requests.map((request) => request.api)).toEqual([shape, shape]);
      const toolMessage = requests[1]!.messages.find((message) => message.role === 'tool');
      expect(toolMessage?.content).toContain("Here's the image you requested:");
      if (accepts) {
        expect(toolMessage).toMatchObject({ images: [{ mediaType: 'image/png', data: tinyImage }] });
        expect(toolMessage?.content).not.toContain('[image content]');
      } else {
        expect(toolMessage).not.toHaveProperty('images');
        expect(toolMessage?.content).toContain('[image content]');
        expect(JSON.stringify(requests[1]!.body)).not.toContain(tinyImage.slice(0, 64));
      }
      const [finishedCall] = payloads(events, 'tool-call-finished');
      expect(finishedCall).toMatchObject({
        tool: TINY_IMAGE_TOOL,
        isError: false,
        media: [{ type: 'image', mimeType: 'image/png', bytes: expect.any(Number) }],
      });
      expect(JSON.stringify(events)).not.toContain(tinyImage.slice(0, 64));
    });
  }
});

describe('weft tools call', () => {
  it('declines elicitation without a terminal and says why on stderr', async () => {
    const cli = join(base, 'cli');
    await mkdir(cli, { recursive: true });
    await writeFile(
      join(cli, '.mcp.json'),
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }),
    );
    const result = await runCli(['tools', 'call', 'mcp__everything__trigger-elicitation-request'], {
      cwd: cli,
      env: { WEFT_HOME: join(base, 'cli-home') },
    });
    expect(result.stderr, result.stdout).toContain(
      `weft: MCP server 'everything' asked for input ("Please provide inputs for the following fields:"), but stdin is not a terminal, so weft declined. Run the command in a terminal to answer it.`,
    );
    expect(result.stdout).toContain('User declined to provide the requested information.');
    expect(result.code).toBe(0);
  });

  it("answers sampling with the [llm] model of the project's settings", async () => {
    const cli = join(base, 'cli-sampling');
    await mkdir(join(cli, '.weft'), { recursive: true });
    await writeFile(
      join(cli, '.weft', 'settings.toml'),
      `[llm]\nprovider = "anthropic"\nmodel = "claude-cli"\nbase_url = "${server.baseUrl('anthropic')}"\n`,
    );
    await writeFile(
      join(cli, '.mcp.json'),
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], sampling: true } } }),
    );
    const before = server.requests.length;
    const result = await runCli(
      ['tools', 'call', 'mcp__everything__trigger-sampling-request', '--args', '{"prompt":"from the cli","maxTokens":7}'],
      { cwd: cli, env: { ...TEST_ENV, WEFT_HOME: join(base, 'cli-home') } },
    );
    expect(result.stdout, result.stderr).toContain('sampled hello');
    expect(result.code).toBe(0);
    expect(server.requests.slice(before)).toMatchObject([
      {
        api: 'anthropic',
        model: 'claude-cli',
        maxOutputTokens: 7,
        messages: [{ role: 'user', text: 'Resource trigger-sampling-request context: from the cli' }],
      },
    ]);
  });
});
