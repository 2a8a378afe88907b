/**
 * `weft-runtime/ai-sdk`: an AI SDK `generateText` loop with weft's MCP tools, against a real
 * stdio MCP server and the fake model server speaking OpenAI's wire format. The model sees
 * the tool's answer, a refused call as an error, and provider-safe tool definitions.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs } from 'ai';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { aiSdkTools } from '../src/lib/ai-sdk.js';
import { connectMcp, type McpClient } from '../src/lib/mcp.js';
import { startModelServer, type ModelServer } from './fixtures/model-server/model-server.js';

const FIXTURE_SERVER = fileURLToPath(new URL('./fixtures/servers/fixture-server.mjs', import.meta.url));

let mcp: McpClient | undefined;
let model: ModelServer | undefined;
afterEach(async () => {
  await mcp?.close();
  await model?.close();
  mcp = undefined;
  model = undefined;
});

describe('aiSdkTools', () => {
  it('lets generateText call MCP tools through the executor: results, refusals by rule, provider-safe definitions', async () => {
    mcp = await connectMcp({
      projectConfig: false,
      servers: { fixture: { command: process.execPath, args: [FIXTURE_SERVER] } },
      approval: [{ pattern: 'mcp__fixture__crash', action: 'deny' }],
    });
    model = await startModelServer({
      script: [
        {
          toolCalls: [
            { name: 'mcp__fixture__echo', arguments: { message: 'hi' } },
            { name: 'mcp__fixture__crash', arguments: {} },
          ],
        },
        { text: 'done' },
      ],
    });
    const openai = createOpenAI({ baseURL: model.baseUrl('openai-chat'), apiKey: 'test' });
    const tools = aiSdkTools(mcp, { include: (tool) => tool.name === 'mcp__fixture__echo' || tool.name === 'mcp__fixture__crash' });
    const result = await generateText({ model: openai.chat('gpt-test'), tools, stopWhen: stepCountIs(3), prompt: 'echo hi' });

    expect(result.text).toBe('done');
    expect(model.requests[0]!.tools.map((tool) => tool.name).sort()).toEqual(['mcp__fixture__crash', 'mcp__fixture__echo']);
    expect(model.requests[0]!.tools.find((tool) => tool.name === 'mcp__fixture__echo')?.parameters).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
    });
    const toolMessages = model.requests[1]!.messages.filter((message) => message.role === 'tool');
    expect(toolMessages).toHaveLength(2);
    expect(toolMessages[0]!.content).toContain('echo: hi');
    expect(toolMessages[1]!.content).toMatch(/denied/i);
  });

  it("stops a call when the AI SDK's abort signal aborts", async () => {
    mcp = await connectMcp({ projectConfig: false, servers: { fixture: { command: process.execPath, args: [FIXTURE_SERVER] } } });
    const hang = aiSdkTools(mcp).mcp__fixture__hang!;
    const abort = new AbortController();
    const call = hang.execute!({}, { toolCallId: 'c1', messages: [], abortSignal: abort.signal });
    abort.abort();
    await expect(call).rejects.toThrow(/cancel/i);
  });
});
