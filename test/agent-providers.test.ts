/**
 * The agent loop against each provider API shape (OpenAI Chat Completions, OpenAI
 * Responses, Anthropic Messages, Gemini), streamed and not: the model calls a built-in
 * tool and an MCP tool (server-everything's `echo`, through a real McpHub) in one turn,
 * gets both results in call order, and finishes. The real provider packages talk to the
 * fake model server over HTTP.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEngineKit, finishedStages, type EngineKit } from './kits/engine-kit.js';
import type { Tool } from '../src/tools/tool.js';
import { agentRunner, llmSettings, runWorkflow, SHAPES, stageFinished, transcript } from './fixtures/model-server/agent-kit.js';
import { startModelServer, type ModelServer, type RecordedMessage } from './fixtures/model-server/model-server.js';
import { createTestHub, EVERYTHING, serverConfig, type TestHub } from './fixtures/servers/hub-kit.js';

const WORKFLOW = `
[workflow]
name = "provider-check"
[nodes.work]
kind = "agent"
prompt = "Read notes.txt and echo {{ inputs.word }}."
tools = ["read_file", "mcp__everything__*"]
[inputs.word]
default = "hello"
`;

let hub: TestHub;
let mcpTools: Tool[];

beforeAll(async () => {
  hub = createTestHub();
  await hub.hub.start([serverConfig('everything', { command: [process.execPath, EVERYTHING, 'stdio'] })]);
  mcpTools = hub.registry.list().filter((tool) => tool.server === 'everything');
  expect(mcpTools.map((tool) => tool.name)).toContain('mcp__everything__echo');
});

afterAll(async () => {
  await hub?.hub.close();
});

let kit: EngineKit;
let server: ModelServer | undefined;

beforeEach(async () => {
  kit = await createEngineKit({ extraTools: mcpTools });
  await kit.write('notes.txt', 'alpha\nbeta\n');
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await kit.close();
});

const toolMessages = (messages: readonly RecordedMessage[]) => messages.filter((message) => message.role === 'tool');

// The same chat completions wire through @ai-sdk/openai-compatible (the ollama preset, no key needed).
const PROVIDERS = [...SHAPES, { shape: 'openai-chat' as const, provider: 'ollama' }];

describe.each(PROVIDERS)('agent loop over $shape ($provider)', ({ shape, provider }) => {
  it.each([true, false])('runs a built-in and an MCP tool in parallel and finishes (stream: %s)', async (stream) => {
    server = await startModelServer({
      script: [
        {
          text: 'Reading and echoing.',
          toolCalls: [
            { name: 'read_file', arguments: { file_path: 'notes.txt' } },
            { name: 'mcp__everything__echo', arguments: { message: 'hello' } },
          ],
          usage: { input: 50, output: 10 },
        },
        { text: 'The notes say alpha and beta; the echo said hello.', usage: { input: 80, output: 12 } },
      ],
    });
    const { run, events } = await runWorkflow(
      kit,
      WORKFLOW,
      agentRunner(llmSettings(server, shape, { stream, provider }), provider === 'ollama' ? {} : undefined),
      { goal: 'Check the notes' },
    );

    expect(finishedStages(events)).toEqual([['work@1', 'succeeded']]);
    expect(run.status).toBe('succeeded');
    expect(stageFinished(events, 'work@1')?.output).toBe('The notes say alpha and beta; the echo said hello.');

    // Each tool call's end is recorded as it ends: the two ends may come in either order.
    const steps = transcript(events).map((event) => [event.type, event.payload] as const);
    const ends = steps.filter(([type]) => type === 'tool-call-finished').sort((a, b) => String(a[1].tool).localeCompare(String(b[1].tool)));
    expect(steps.findIndex(([type]) => type === 'tool-call-finished')).toBe(4);
    expect([...steps.filter(([type]) => type !== 'tool-call-finished').slice(0, 4), ...ends, ...steps.slice(6)]).toEqual([
      [
        'agent-started',
        expect.objectContaining({
          kind: 'agent',
          provider,
          model: 'test-model',
          tools: ['read_file', ...mcpTools.map((tool) => tool.name)],
          maxTurns: 20,
        }),
      ],
      [
        'model-turn-finished',
        {
          turn: 1,
          text: 'Reading and echoing.',
          toolCalls: [
            { callId: expect.any(String), tool: 'read_file', arguments: { file_path: 'notes.txt' } },
            { callId: expect.any(String), tool: 'mcp__everything__echo', arguments: { message: 'hello' } },
          ],
          // Cached input and reasoning tokens too, where the provider package reports them.
          usage: expect.objectContaining({ inputTokens: 50, outputTokens: 10, totalTokens: 60 }),
          finishReason: 'tool-calls',
          model: `${provider}:test-model`,
        },
      ],
      ['tool-call-started', expect.objectContaining({ tool: 'read_file', arguments: { file_path: 'notes.txt' }, turn: 1 })],
      ['tool-call-started', expect.objectContaining({ tool: 'mcp__everything__echo', arguments: { message: 'hello' }, turn: 1 })],
      ['tool-call-finished', expect.objectContaining({ tool: 'mcp__everything__echo', isError: false, text: 'Echo: hello', turn: 1 })],
      [
        'tool-call-finished',
        expect.objectContaining({ tool: 'read_file', isError: false, text: expect.stringContaining('alpha'), turn: 1 }),
      ],
      [
        'model-turn-finished',
        expect.objectContaining({
          turn: 2,
          text: 'The notes say alpha and beta; the echo said hello.',
          toolCalls: [],
          finishReason: 'stop',
        }),
      ],
    ]);

    const [first, second] = server.requests;
    expect(server.requests).toHaveLength(2);
    expect(first).toMatchObject({ api: shape, model: 'test-model', stream });
    expect(
      first!.headers.authorization === undefined &&
        first!.headers['x-api-key'] === undefined &&
        first!.headers['x-goog-api-key'] === undefined,
    ).toBe(provider === 'ollama');
    expect(first!.system).toContain("stage 'work' of the workflow 'provider-check'");
    expect(first!.messages).toEqual([{ role: 'user', text: 'Goal of this run: Check the notes\n\nRead notes.txt and echo hello.' }]);
    expect(first!.tools.map((tool) => tool.name)).toEqual(['read_file', ...mcpTools.map((tool) => tool.name)]);

    const callIds = (transcript(events)[1]!.payload.toolCalls as { callId: string }[]).map((call) => call.callId);
    const results = toolMessages(second!.messages);
    expect(results.map((result) => result.content)).toEqual([expect.stringContaining('alpha'), 'Echo: hello']);
    if (shape !== 'gemini') expect(results.map((result) => result.role === 'tool' && result.callId)).toEqual(callIds);
    else expect(results.map((result) => result.role === 'tool' && result.name)).toEqual(['read_file', 'mcp__everything__echo']);
    expect(second!.messages[1]).toMatchObject({ role: 'assistant', text: 'Reading and echoing.' });
  });
});
