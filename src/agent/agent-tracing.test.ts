import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordSpans, type SpanKit } from '../../test/kits/span-kit.js';
import { WeftError } from '../core/errors.js';
import { tracedGenerate } from './agent-tracing.js';
import type { ModelClient, ModelRequest, ModelTurn } from './model-client.js';

let kit: SpanKit;
beforeAll(() => {
  kit = recordSpans();
});
afterAll(() => kit.stop());
beforeEach(() => kit.reset());

/** A model that answers each request with the next scripted turn or throws the next error. */
function scriptedClient(provider: string, steps: (ModelTurn | Error)[]): ModelClient {
  return {
    provider,
    modelId: 'scripted-1',
    toolDialect: 'anthropic',
    async generate() {
      const step = steps.shift()!;
      if (step instanceof Error) throw step;
      return step;
    },
  };
}

const request = (): ModelRequest => ({
  messages: [{ role: 'user', content: 'the prompt never reaches a span' }],
  tools: [],
  maxOutputTokens: 512,
  signal: new AbortController().signal,
});

describe('model turn spans', () => {
  it('are GenAI chat client spans with the provider, model, output limit, finish reason and token counts', async () => {
    const client = scriptedClient('google', [
      {
        text: 'the answer never reaches a span',
        toolCalls: [],
        usage: { inputTokens: 11, outputTokens: 7, totalTokens: 18 },
        finishReason: 'stop',
        messages: [],
      },
    ]);
    const turn = await tracedGenerate(client, request(), 4, undefined);
    expect(turn.text).toBe('the answer never reaches a span');
    const [span] = kit.spans();
    expect([span!.name, span!.kind, span!.status.code]).toEqual(['chat scripted-1', SpanKind.CLIENT, SpanStatusCode.UNSET]);
    expect(span!.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'gcp.gemini',
      'gen_ai.system': 'gcp.gemini',
      'gen_ai.request.model': 'scripted-1',
      'gen_ai.request.max_tokens': 512,
      'weft.llm.provider': 'google',
      'weft.agent.turn': 4,
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 7,
      'gen_ai.response.finish_reasons': ['stop'],
      'weft.agent.tool_calls': 0,
    });
  });

  it('record a failed call with its error code and the message redacted, and rethrow it', async () => {
    const refused = new WeftError('MODEL_AUTH_FAILED', 'anthropic refused the key sk-ant-abcdefghijklmnopqrstuvwxyz');
    await expect(tracedGenerate(scriptedClient('anthropic', [refused]), request(), 1, undefined)).rejects.toBe(refused);
    const [span] = kit.spans();
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'anthropic refused the key [redacted:api-key]' });
    expect(span!.attributes['error.type']).toBe('MODEL_AUTH_FAILED');
    expect(span!.attributes['gen_ai.provider.name']).toBe('anthropic');
  });

  it("carry the turn's cost, reported and estimated apart", async () => {
    const usage = { inputTokens: 11, outputTokens: 7, totalTokens: 18, estimatedCostUsd: 0.0025 };
    await tracedGenerate(
      scriptedClient('anthropic', [{ text: '', toolCalls: [], usage, finishReason: 'stop', messages: [] }]),
      request(),
      1,
      undefined,
    );
    await tracedGenerate(
      scriptedClient('anthropic', [
        { text: '', toolCalls: [], usage: { ...usage, estimatedCostUsd: undefined, unpricedTurns: 1 }, finishReason: 'stop', messages: [] },
      ]),
      request(),
      2,
      undefined,
    );
    const [priced, unpriced] = kit.spans();
    expect(priced!.attributes['weft.cost.estimated_usd']).toBe(0.0025);
    expect(priced!.attributes['weft.cost.reported_usd']).toBeUndefined();
    expect(unpriced!.attributes['weft.cost.unpriced_turns']).toBe(1);
    expect(unpriced!.attributes['weft.cost.estimated_usd']).toBeUndefined();
  });
});
