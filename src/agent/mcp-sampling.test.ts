/** Unit tests of `sampleWithModel` and `toolResultOutput` with a recording model client. */
import { describe, expect, it } from 'vitest';
import type { ImageInput, ModelClient, ModelRequest, ModelTurn } from './model-client.js';
import { sampleWithModel } from './mcp-sampling.js';
import { toolResultOutput } from './tool-result-output.js';

function recordingClient(turn: Partial<ModelTurn>, imageInput?: ImageInput): ModelClient & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    provider: 'fake',
    modelId: 'fake-model',
    toolDialect: 'anthropic',
    ...(imageInput ? { imageInput } : {}),
    requests,
    generate: async (request) => {
      requests.push(request);
      return {
        text: '',
        toolCalls: [],
        usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 },
        finishReason: 'stop',
        messages: [],
        ...turn,
      };
    },
  };
}

const signal = new AbortController().signal;
const image = { type: 'image' as const, data: 'QUJD', mimeType: 'image/png' };

describe('sampleWithModel', () => {
  it('sends the system prompt, messages and maxTokens; answers in MCP shape', async () => {
    const client = recordingClient({ text: 'Hello!', finishReason: 'length' });
    const outcome = await sampleWithModel(
      client,
      {
        systemPrompt: 'Be brief.',
        maxTokens: 20,
        messages: [
          { role: 'user', content: { type: 'text', text: 'Hi' } },
          { role: 'assistant', content: { type: 'text', text: 'Yes?' } },
          { role: 'user', content: [{ type: 'text', text: 'Look' }, image, { type: 'audio', data: 'QUJD', mimeType: 'audio/wav' }] },
        ],
      },
      signal,
    );
    expect(outcome).toEqual({
      result: { role: 'assistant', content: { type: 'text', text: 'Hello!' }, model: 'fake-model', stopReason: 'maxTokens' },
      usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 },
    });
    expect(client.requests[0]).toMatchObject({
      system: 'Be brief.',
      maxOutputTokens: 20,
      tools: [],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: 'Yes?' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'text', text: '[image content]' },
            { type: 'text', text: '[audio content]' },
          ],
        },
      ],
    });
  });

  it('passes images when the model takes them in messages', async () => {
    const client = recordingClient({ text: 'A logo.' }, { messages: true, toolResults: false });
    const { result } = await sampleWithModel(client, { maxTokens: 5, messages: [{ role: 'user', content: image }] }, signal);
    expect(result.stopReason).toBe('endTurn');
    expect(client.requests[0]?.messages).toEqual([{ role: 'user', content: [{ type: 'image', image: 'QUJD', mediaType: 'image/png' }] }]);
    expect(client.requests[0]).not.toHaveProperty('system');
  });
});

describe('toolResultOutput', () => {
  const result = { content: [{ type: 'text' as const, text: 'Logo:' }, image, { type: 'text' as const, text: 'done' }], isError: false };

  it('is text with [image content] when the model takes no images in tool results', () => {
    expect(toolResultOutput(result, { messages: true, toolResults: false })).toEqual({
      type: 'text',
      value: 'Logo:\n[image content]\ndone',
    });
    expect(toolResultOutput(result, undefined)).toEqual({ type: 'text', value: 'Logo:\n[image content]\ndone' });
  });

  it('is one text part (images marked in place) and then the images when it does', () => {
    expect(toolResultOutput(result, { messages: true, toolResults: true })).toEqual({
      type: 'content',
      value: [
        { type: 'text', text: 'Logo:\n[image 1]\ndone' },
        { type: 'image-data', data: 'QUJD', mediaType: 'image/png' },
      ],
    });
  });

  it('keeps errors as error text', () => {
    expect(toolResultOutput({ ...result, isError: true }, { messages: true, toolResults: true })).toEqual({
      type: 'error-text',
      value: 'Logo:\n[image content]\ndone',
    });
  });
});
