/**
 * OpenTelemetry end to end: the real CLI with `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at an
 * OTLP/HTTP receiver on 127.0.0.1; a workflow with a tool stage calling the real
 * server-memory, an agent stage on the fake model server (calling server-memory too) and a
 * failing command stage. The detached runner exports a span tree — run attempt, stages, the
 * agent, its model turns (GenAI attributes, token counts) and every tool call with its MCP
 * server — flushed before it exits, and no secret from the environment, the tool arguments
 * or the exporter headers is in anything it sent.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT, WEFT_BIN } from './helpers/run-cli.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './helpers/otlp-receiver.js';
import { createSandbox, until, type Sandbox } from './fixtures/workflows-e2e/harness.js';
import { startModelServer, type ModelServer } from './fixtures/model-server/model-server.js';

vi.setConfig({ testTimeout: 90_000 });

const MODULE_TRACE = join(REPO_ROOT, 'test/fixtures/module-trace/register.mjs');
const MEMORY = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const SECRET = 'otel-secret-value-4242';
const HEADER_SECRET = 'otlp-header-secret-9876';
const SPAN_KIND_CLIENT = 3;
const STATUS_ERROR = 2;

let box: Sandbox;
let receiver: OtlpReceiver;
let model: ModelServer;

beforeEach(async () => {
  box = await createSandbox();
  receiver = await startOtlpReceiver();
  model = await startModelServer({
    script: [
      {
        toolCalls: [
          { name: 'mcp__memory__read_graph', arguments: {} },
          { name: 'mcp__memory__search_nodes', arguments: { query: SECRET } },
        ],
        usage: { input: 120, output: 30 },
      },
      { text: 'The graph holds weft.', usage: { input: 200, output: 15 } },
    ],
  });
  await mkdir(join(box.ws, '.weft'), { recursive: true });
  await writeFile(
    join(box.ws, '.weft', 'settings.toml'),
    `[llm]\nprovider = "openai-compatible"\nbase_url = "${model.baseUrl('openai-chat')}"\nmodel = "trace-model"\n`,
  );
  await writeFile(
    join(box.ws, '.mcp.json'),
    JSON.stringify({
      mcpServers: { memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: join(box.base, 'memory.jsonl') } } },
    }),
  );
  await writeFile(
    join(box.ws, 'traced.toml'),
    `[workflow]
name = "traced"

[nodes.remember]
kind = "tool"
tool = "mcp__memory__create_entities"
args = { entities = [{ name = "weft", entityType = "project", observations = ["key {{ env.OTEL_E2E_API_KEY }}"] }] }
next = "think"

[nodes.think]
kind = "agent"
prompt = "What does the graph hold?"
tools = ["mcp__memory__*"]
next = "leak"

[nodes.leak]
kind = "command"
run = 'echo "cannot use $OTEL_E2E_API_KEY" >&2; exit 3'
`,
  );
});

afterEach(async () => {
  await box.dispose();
  await receiver.close();
  await model.close();
});

function otelEnv(): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_HEADERS: `x-collector-key=${HEADER_SECRET}`,
    OTEL_SERVICE_NAME: 'weft-e2e',
    OTEL_E2E_API_KEY: SECRET,
  };
}

/** The spans whose parent is `parent`, as `name` in start order. */
function childrenOf(spans: readonly ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return spans.filter((span) => span.parentSpanId === parent.spanId);
}

function one(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((span) => span.name === name);
  expect(found.map((span) => span.name)).toEqual([name]);
  return found[0]!;
}

describe('OpenTelemetry traces', () => {
  it('exports a run as one trace: attempt, stages, agent, model turns with GenAI attributes and tool calls with their MCP server, secrets redacted', async () => {
    const result = await box.cli(['run', 'traced.toml', '--auto-approve'], otelEnv());
    expect(result.code, result.stderr).toBe(1);
    const id = /^run (\S+) · traced · /m.exec(result.stderr)![1]!;
    // The attempt's span ends last; it arrives when the runner flushes before it exits.
    const root = await receiver.waitForSpan((span) => span.name === 'invoke_workflow traced' && span.attributes['weft.run.id'] === id);
    const spans = receiver.spans.filter((span) => span.traceId === root.traceId);

    expect(root.parentSpanId).toBeUndefined();
    expect(root.scope).toBe('weft');
    expect(root.resource['service.name']).toBe('weft-e2e');
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.workflow.name': 'traced',
      'weft.run.status': 'failed',
      'weft.run.resumed': false,
      'error.type': 'run_failed',
    });
    expect(root.status).toEqual({ code: STATUS_ERROR, message: expect.stringContaining('cannot use [redacted:OTEL_E2E_API_KEY]') });

    const stages = childrenOf(spans, root);
    expect(stages.map((span) => [span.name, span.attributes['weft.stage.id'], span.attributes['weft.stage.status']])).toEqual([
      ['stage remember', 'remember@1', 'succeeded'],
      ['stage think', 'think@1', 'succeeded'],
      ['stage leak', 'leak@1', 'failed'],
    ]);
    const [remember, think, leak] = stages as [ReceivedSpan, ReceivedSpan, ReceivedSpan];
    expect(leak.status).toEqual({ code: STATUS_ERROR, message: 'cannot use [redacted:OTEL_E2E_API_KEY]' });
    expect(leak.events).toEqual([
      {
        name: 'exception',
        attributes: { 'exception.type': 'stage_failed', 'exception.message': 'cannot use [redacted:OTEL_E2E_API_KEY]' },
      },
    ]);

    const created = one(childrenOf(spans, remember), 'execute_tool mcp__memory__create_entities');
    expect(created.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'mcp__memory__create_entities',
      'gen_ai.tool.call.id': 'remember@1',
      'gen_ai.tool.type': 'extension',
      'mcp.method.name': 'tools/call',
      'weft.tool.source': 'mcp',
      'weft.mcp.server': 'memory',
      'weft.tool.is_error': false,
    });

    const agent = one(childrenOf(spans, think), 'invoke_agent think');
    expect(agent.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'think',
      'gen_ai.provider.name': 'openai-compatible',
      'gen_ai.request.model': 'trace-model',
      'gen_ai.usage.input_tokens': 320,
      'gen_ai.usage.output_tokens': 45,
      'weft.agent.turns': 2,
    });
    const underAgent = childrenOf(spans, agent);
    const turns = underAgent.filter((span) => span.name === 'chat trace-model');
    expect(
      turns.map((span) => [
        span.kind,
        span.attributes['weft.agent.turn'],
        span.attributes['gen_ai.usage.input_tokens'],
        span.attributes['gen_ai.usage.output_tokens'],
        span.attributes['gen_ai.response.finish_reasons'],
      ]),
    ).toEqual([
      [SPAN_KIND_CLIENT, 1, 120, 30, ['tool-calls']],
      [SPAN_KIND_CLIENT, 2, 200, 15, ['stop']],
    ]);
    expect(turns[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai-compatible',
      'gen_ai.system': 'openai-compatible',
      'gen_ai.request.model': 'trace-model',
    });
    const calls = underAgent.filter((span) => span.name.startsWith('execute_tool '));
    expect(calls.map((span) => [span.name, span.attributes['weft.mcp.server'], span.attributes['gen_ai.tool.call.id']]).sort()).toEqual([
      ['execute_tool mcp__memory__read_graph', 'memory', expect.any(String)],
      ['execute_tool mcp__memory__search_nodes', 'memory', expect.any(String)],
    ]);

    // Every span of the run is in the tree above; every span this test received is this run's.
    expect(spans).toHaveLength(1 + 3 + 1 + 1 + 2 + 2);
    expect(receiver.spans).toHaveLength(spans.length);
    // The trace is recorded on the run, once, so a resumed run continues it.
    const traced = await box.events(id, '--type', 'run-trace-started');
    expect(traced.map((event) => event.payload)).toEqual([{ traceparent: `00-${root.traceId}-${root.spanId}-01` }]);

    // The exporter used the configured headers; neither they nor the run's secret left in a span.
    expect(receiver.headers.every((headers) => headers['x-collector-key'] === HEADER_SECRET)).toBe(true);
    expect(receiver.bodies.map((body) => [body.includes(SECRET), body.includes(HEADER_SECRET)])).toEqual(
      receiver.bodies.map(() => [false, false]),
    );
  });

  it('continues the trace when another runner takes the run over: the new attempt is a child of the first', async () => {
    await writeFile(
      join(box.ws, 'hold.toml'),
      `[workflow]\nname = "held"\n\n[nodes.hold]\nkind = "command"\nrun = 'touch held; while [ ! -f release.marker ]; do sleep 0.05; done; echo released'\n`,
    );
    const created = await box.cli(['run', 'hold.toml', '--detach'], otelEnv());
    expect(created.code, created.stderr).toBe(0);
    await until('the hold stage to start', async () => (existsSync(join(box.ws, 'held')) ? true : undefined), 30_000);
    const running = await box.inspect(created.stdout.trim());
    // SIGTERM stops the runner cleanly: it releases the lease and flushes its spans before it exits.
    process.kill(Number(running.lease!.workerId.split('-')[0]), 'SIGTERM');
    const first = await receiver.waitForSpan((span) => span.name === 'invoke_workflow held');
    expect(first.attributes).toMatchObject({ 'weft.run.id': running.id, 'weft.run.status': 'running', 'weft.run.resumed': false });

    await writeFile(join(box.ws, 'release.marker'), '');
    const worker = spawn(process.execPath, [WEFT_BIN, '--cwd', box.ws, 'worker', '--until-idle'], {
      cwd: box.ws,
      env: { ...process.env, ...box.env, ...otelEnv() },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
    const second = await receiver.waitForSpan((span) => span.name === 'invoke_workflow held' && span.spanId !== first.spanId);
    expect(await exited).toBe(0);
    expect(second).toMatchObject({ traceId: first.traceId, parentSpanId: first.spanId });
    expect(second.attributes).toMatchObject({ 'weft.run.id': running.id, 'weft.run.status': 'succeeded', 'weft.run.resumed': true });
    // The first runner's stage span ended with its attempt; the second ran the stage again under its own attempt.
    const stageSpans = receiver.spans.filter((span) => span.name === 'stage hold');
    expect(stageSpans.map((span) => [span.parentSpanId, span.attributes['weft.stage.status']])).toEqual([
      [first.spanId, 'abandoned'],
      [second.spanId, 'succeeded'],
    ]);
    expect((await box.events(running.id, '--type', 'run-trace-started')).map((event) => event.payload.traceparent)).toEqual([
      `00-${first.traceId}-${first.spanId}-01`,
    ]);
  });

  it("puts a child run's spans in its parent's trace, under the stage that created it", async () => {
    await writeFile(join(box.ws, 'parent.toml'), `[workflow]\nname = "parent"\n\n[nodes.kid]\nkind = "child"\nworkflow = "ok.toml"\n`);
    const result = await box.cli(['run', 'parent.toml'], otelEnv());
    expect(result.code, result.stderr).toBe(0);
    const parent = await receiver.waitForSpan((span) => span.name === 'invoke_workflow parent');
    const child = await receiver.waitForSpan((span) => span.name === 'invoke_workflow ok');
    const kid = receiver.spans.find((span) => span.name === 'stage kid')!;
    expect([kid.traceId, kid.parentSpanId]).toEqual([parent.traceId, parent.spanId]);
    expect([child.traceId, child.parentSpanId]).toEqual([parent.traceId, kid.spanId]);
    expect(child.attributes).toMatchObject({
      'weft.run.parent_id': parent.attributes['weft.run.id'],
      'weft.run.resumed': false,
      'weft.run.status': 'succeeded',
    });
    expect(receiver.spans.filter((span) => span.name === 'stage hello').map((span) => span.parentSpanId)).toEqual([child.spanId]);
  });

  it('loads nothing of the OpenTelemetry SDK or exporter in the CLI or its runner without an endpoint', async () => {
    const trace = join(box.base, 'modules.txt');
    // NODE_OPTIONS reaches the detached runner too: both processes append to the one file.
    const result = await box.cli(['run', 'ok.toml'], { NODE_OPTIONS: `--import ${MODULE_TRACE}`, MODULE_TRACE: trace });
    expect(result.code, result.stderr).toBe(0);
    const loaded = (await readFile(trace, 'utf8')).split('\n');
    // The runner's own modules are there (the agent layer loads the AI SDK): the file covers it.
    expect(loaded.some((url) => url.includes('/node_modules/ai/'))).toBe(true);
    // Only the API, which the AI SDK imports itself (weft's own copy is bundled): no SDK, resources or exporter.
    expect(
      loaded.filter((url) => url.includes('/node_modules/@opentelemetry/') && !url.includes('/node_modules/@opentelemetry/api/')),
    ).toEqual([]);
  });
});
