/**
 * The agent loop's behaviour through the engine against the fake model server: limits,
 * errors the model must see (failed tools, unreadable arguments, unknown tools),
 * provider errors (retried 429/5xx, refused keys, missing keys), messages sent to the run
 * during a stage, cancellation, and `prompt` stages.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngineKit, finishedStages, type EngineKit } from './kits/engine-kit.js';
import { textResult, type Tool } from '../src/tools/tool.js';
import { agentRunner, llmSettings, runWorkflow, stageFinished, TEST_ENV, transcript } from './fixtures/model-server/agent-kit.js';
import { startModelServer, type ModelServer, type ModelServerOptions, type RecordedMessage } from './fixtures/model-server/model-server.js';

let kit: EngineKit;
let server: ModelServer | undefined;
let runId = '';
const extraTools: Tool[] = [];

function extraTool(name: string, execute: Tool['execute']): Tool {
  return { name, description: `test tool ${name}`, inputSchema: { type: 'object', properties: {} }, source: 'builtin', execute };
}

extraTools.push(
  extraTool('explode', async () => {
    throw new Error('the widget exploded');
  }),
  extraTool('ping_operator', async () => {
    await kit.service.message(runId, 'Also mention bananas.');
    return textResult('operator pinged');
  }),
);

beforeEach(async () => {
  kit = await createEngineKit({ extraTools });
  await kit.write('notes.txt', 'alpha\n');
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await kit.close();
});

async function serve(options: ModelServerOptions): Promise<ModelServer> {
  server = await startModelServer(options);
  return server;
}

const agentNode = (extra = '') => `
[nodes.work]
kind = "agent"
prompt = "Do the work."
${extra}
`;

const run = (toml: string, agent: ReturnType<typeof agentRunner>) => runWorkflow(kit, toml, agent, { onCreated: (id) => (runId = id) });
const lastTools = (messages: readonly RecordedMessage[]) => messages.filter((message) => message.role === 'tool');

describe('agent loop limits', () => {
  it('stops a model that never stops calling tools at max turns, with the reason', async () => {
    const model = await serve({ script: () => ({ toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] }) });
    const { run: finished, events } = await run(agentNode('max_turns = 3'), agentRunner(llmSettings(model, 'anthropic')));
    expect(finishedStages(events)).toEqual([['work@1', 'failed']]);
    expect(stageFinished(events, 'work@1')?.error).toBe('max turns (3) reached');
    expect(finished).toMatchObject({ status: 'failed', reason: "stage 'work' failed: max turns (3) reached" });
    expect(model.requests).toHaveLength(3);
    expect(events.filter((event) => event.type === 'tool-call-finished')).toHaveLength(3);
  });

  it('stops when the token budget (max_tokens) is spent and the model wants to go on', async () => {
    const model = await serve({ script: () => ({ toolCalls: [{ name: 'list_dir', arguments: {} }], usage: { input: 300, output: 100 } }) });
    const { events } = await run(agentNode('max_tokens = 1000'), agentRunner(llmSettings(model, 'openai-chat')));
    expect(stageFinished(events, 'work@1')?.error).toBe('max tokens (1000) reached: the stage used 1200 tokens in 3 turns');
    expect(model.requests.map((request) => request.maxOutputTokens)).toEqual([1000, 600, 200]);
  });
});

describe('errors the model sees as tool results', () => {
  it('returns failed and throwing tools to the model as error results and goes on', async () => {
    const model = await serve({
      script: [
        { toolCalls: [{ name: 'read_file', arguments: { file_path: 'missing.txt' } }, { name: 'explode' }] },
        { text: 'The file is missing and the widget exploded.' },
      ],
    });
    const { events } = await run(agentNode(), agentRunner(llmSettings(model, 'anthropic')));
    expect(finishedStages(events)).toEqual([['work@1', 'succeeded']]);
    // Each call's end is recorded as it ends, so the two may come in either order.
    const finishes = events
      .filter((event) => event.type === 'tool-call-finished')
      .map((event) => [event.payload.tool, event.payload.isError]);
    expect(finishes.sort()).toEqual([
      ['explode', true],
      ['read_file', true],
    ]);
    expect(lastTools(model.requests[1]!.messages)).toEqual([
      { role: 'tool', callId: expect.any(String), content: expect.stringContaining('missing.txt'), isError: true },
      { role: 'tool', callId: expect.any(String), content: 'the widget exploded', isError: true },
    ]);
  });

  it.each([true, false])(
    'answers unreadable JSON, unknown tools and schema violations with errors, then continues (stream: %s)',
    async (stream) => {
      const model = await serve({
        script: [
          {
            toolCalls: [
              { name: 'read_file', rawArguments: '{"file_path": "notes.txt"' },
              { name: 'no_such_tool', arguments: {} },
              { name: 'read_file', arguments: { file_path: 42 } },
            ],
          },
          { toolCalls: [{ name: 'read_file', arguments: { file_path: 'notes.txt' } }] },
          { text: 'alpha' },
        ],
      });
      const { events } = await run(agentNode(), agentRunner(llmSettings(model, 'openai-chat', { stream })));
      expect(finishedStages(events)).toEqual([['work@1', 'succeeded']]);
      const results = lastTools(model.requests[1]!.messages).map((message) => message.role === 'tool' && message.content);
      expect(results).toEqual([
        expect.stringMatching(/^The arguments of this 'read_file' call are not valid JSON .*Call the tool again/),
        expect.stringMatching(/^Unknown tool 'no_such_tool'\. Available tools: .*read_file/),
        "Invalid arguments for 'read_file': /file_path: must be string",
      ]);
      expect(lastTools(model.requests[2]!.messages).at(-1)).toMatchObject({ content: expect.stringContaining('alpha') });
    },
  );
});

describe('provider errors', () => {
  it('retries 429 and 5xx answers with backoff, then goes on', async () => {
    const model = await serve({
      script: [
        { error: { status: 429, headers: { 'retry-after-ms': '1' } } },
        { error: { status: 503, headers: { 'retry-after-ms': '1' } } },
        { text: 'made it' },
      ],
    });
    const { events } = await run(agentNode(), agentRunner(llmSettings(model, 'anthropic', { maxRetries: 2 })));
    expect(stageFinished(events, 'work@1')).toMatchObject({ status: 'succeeded', output: 'made it' });
    expect(model.requests.map((request) => request.status)).toEqual([429, 503, 200]);
  });

  it('fails the stage with a clear reason when the retries run out', async () => {
    const model = await serve({ script: () => ({ error: { status: 429, message: 'slow down', headers: { 'retry-after-ms': '1' } } }) });
    const { events } = await run(agentNode(), agentRunner(llmSettings(model, 'openai-responses', { maxRetries: 1 })));
    expect(stageFinished(events, 'work@1')?.error).toBe(
      "openai (model 'test-model') is rate limiting (429) after 2 attempts: slow down. Wait and retry the run, or raise max_retries in [llm].",
    );
  });

  it('fails at once on 401 with a message naming the key variable', async () => {
    const model = await serve({ apiKey: 'the-right-key', script: [{ text: 'never' }] });
    const { events, run: finished } = await run(agentNode(), agentRunner(llmSettings(model, 'anthropic')));
    expect(stageFinished(events, 'work@1')?.error).toBe(
      "anthropic (model 'test-model') refused the request (401 Unauthorized): invalid api key. Check the key in ANTHROPIC_API_KEY (api_key_env in [llm] picks another variable).",
    );
    expect(finished.status).toBe('failed');
    expect(model.requests).toHaveLength(1);
  });

  it('fails before any request when the key is missing, naming the variable and the setting', async () => {
    const model = await serve({ script: [{ text: 'never' }] });
    const { events } = await run(agentNode(), agentRunner(llmSettings(model, 'anthropic'), {}));
    expect(stageFinished(events, 'work@1')?.error).toBe(
      "No API key for provider 'anthropic': ANTHROPIC_API_KEY is not set. Export ANTHROPIC_API_KEY=<key>, or name another variable with api_key_env in [llm] in .weft/settings.toml (or ~/.weft/settings.toml).",
    );
    const custom = await run(agentNode(), agentRunner(llmSettings(model, 'openai-chat', { apiKeyEnv: 'MY_LLM_KEY' }), TEST_ENV));
    expect(stageFinished(custom.events, 'work@1')?.error).toMatch(
      /^No API key for provider 'openai-chat': The variable MY_LLM_KEY, named by api_key_env in \[llm\], is not set\./,
    );
    expect(model.requests).toHaveLength(0);
  });
});

describe('messages sent to the run', () => {
  it('reach the model on its next turn, also when they arrive during the final answer', async () => {
    const model = await serve({
      script: [
        { toolCalls: [{ name: 'ping_operator' }] },
        async () => {
          await kit.service.message(runId, 'And say it twice.');
          return { text: 'Bananas.' };
        },
        { text: 'Bananas. Bananas.' },
      ],
    });
    const { events } = await run(agentNode(), agentRunner(llmSettings(model, 'anthropic')));
    expect(stageFinished(events, 'work@1')).toMatchObject({ status: 'succeeded', output: 'Bananas. Bananas.' });
    expect(model.requests[1]!.messages.slice(-2)).toEqual([
      { role: 'tool', callId: expect.any(String), content: 'operator pinged', isError: false },
      { role: 'user', text: 'Also mention bananas.' },
    ]);
    expect(model.requests[2]!.messages.slice(-2)).toEqual([
      { role: 'assistant', text: 'Bananas.', toolCalls: [] },
      { role: 'user', text: 'And say it twice.' },
    ]);
    const delivered = transcript(events).filter((event) => event.type === 'message-delivered');
    expect(delivered.map((event) => [event.payload.turn, event.payload.text])).toEqual([
      [2, 'Also mention bananas.'],
      [3, 'And say it twice.'],
    ]);
  });
});

describe('cancellation and prompt stages', () => {
  it('ends the stage as cancelled when the run is cancelled during a model call', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const model = await serve({
      script: [
        async () => {
          await kit.service.cancel(runId, 'changed my mind');
          await held;
          return { text: 'too late' };
        },
      ],
    });
    try {
      const { events, run: finished } = await run(agentNode(), agentRunner(llmSettings(model, 'openai-chat')));
      expect(finishedStages(events)).toEqual([['work@1', 'cancelled']]);
      expect(finished).toMatchObject({ status: 'cancelled', reason: 'changed my mind' });
    } finally {
      release();
    }
  });

  it('makes one call without tools for a prompt node, with max_tokens as the output limit', async () => {
    const model = await serve({ script: [{ text: 'A haiku about {{ braces }}.' }] });
    const toml = `
[nodes.poem]
kind = "prompt"
system = "You write haiku about {{ inputs.topic }}."
prompt = "One haiku, please."
max_tokens = 50
[inputs.topic]
default = "rivers"
`;
    const { events } = await run(toml, agentRunner(llmSettings(model, 'gemini', { stream: false })));
    expect(stageFinished(events, 'poem@1')).toMatchObject({ status: 'succeeded', output: 'A haiku about {{ braces }}.' });
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]).toMatchObject({
      system: 'You write haiku about rivers.',
      tools: [],
      maxOutputTokens: 50,
      messages: [{ role: 'user', text: 'One haiku, please.' }],
    });
  });
});
