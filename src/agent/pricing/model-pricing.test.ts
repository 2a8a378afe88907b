import { describe, expect, it } from 'vitest';
import { isLocalEndpoint, overrideCost, priceOverride, priceTurn } from './model-pricing.js';

const anthropic = { name: 'anthropic', api: 'anthropic-messages' as const };
const usage = { inputTokens: 1_000_000, outputTokens: 100_000, totalTokens: 1_100_000 };

describe('priceTurn', () => {
  it('estimates a known model from the bundled table, cache reads and writes at their own rates', async () => {
    // Under the 200k-token tier: $3 per million input, $15 per million output.
    const small = { inputTokens: 100_000, outputTokens: 10_000, totalTokens: 110_000 };
    expect(await priceTurn(anthropic, 'claude-sonnet-4-5', small, {})).toEqual({ estimatedCostUsd: expect.closeTo(0.3 + 0.15, 9) });
    // 40k plain at $3, 50k read at $0.30, 10k written at $3.75, output $0.15.
    const cached = await priceTurn(anthropic, 'claude-sonnet-4-5', { ...small, cachedInputTokens: 50_000, cacheWriteTokens: 10_000 }, {});
    expect(cached).toEqual({ estimatedCostUsd: expect.closeTo(0.12 + 0.015 + 0.0375 + 0.15, 9) });
    // Past 200k input tokens the table's higher tier applies ($6 / $22.50).
    expect(await priceTurn(anthropic, 'claude-sonnet-4-5', usage, {})).toEqual({ estimatedCostUsd: expect.closeTo(6 + 2.25, 9) });
  });

  it('marks a model no table knows as unpriced rather than free', async () => {
    expect(await priceTurn(anthropic, 'claude-made-up', usage, {})).toEqual({ unpricedTurns: 1 });
    expect(
      await priceTurn({ name: 'together', api: 'openai-compatible', baseUrl: 'https://api.together.example/v1' }, 'some-model', usage, {}),
    ).toEqual({ unpricedTurns: 1 });
  });

  it('prices local OpenAI-compatible endpoints at $0, and overrides win over both table and locality', async () => {
    const ollama = { name: 'ollama', api: 'openai-compatible' as const, baseUrl: 'http://127.0.0.1:11434/v1' };
    expect(await priceTurn(ollama, 'llama3', usage, {})).toEqual({ estimatedCostUsd: 0 });
    expect(await priceTurn(ollama, 'llama3', usage, { 'ollama:*': { inputPerMtok: 1, outputPerMtok: 10 } })).toEqual({
      estimatedCostUsd: 2,
    });
    expect(
      await priceTurn(anthropic, 'claude-sonnet-4-5', usage, { 'anthropic:claude-sonnet-4-5': { inputPerMtok: 0, outputPerMtok: 0 } }),
    ).toEqual({ estimatedCostUsd: 0 });
  });
});

describe('priceOverride', () => {
  it('takes the exact key, else the longest matching pattern', () => {
    const prices = {
      'anthropic:*': { inputPerMtok: 1, outputPerMtok: 1 },
      'anthropic:claude-*': { inputPerMtok: 2, outputPerMtok: 2 },
      'anthropic:claude-x': { inputPerMtok: 3, outputPerMtok: 3 },
    };
    expect(priceOverride(prices, 'anthropic', 'claude-x')?.inputPerMtok).toBe(3);
    expect(priceOverride(prices, 'anthropic', 'claude-y')?.inputPerMtok).toBe(2);
    expect(priceOverride(prices, 'anthropic', 'other')?.inputPerMtok).toBe(1);
    expect(priceOverride(prices, 'openai', 'claude-x')).toBeUndefined();
  });
});

describe('overrideCost', () => {
  it('prices cache reads, cache writes and reasoning at their own rates, defaulting to input and output', () => {
    const price = { inputPerMtok: 10, outputPerMtok: 20, cacheReadPerMtok: 1, reasoningPerMtok: 40 };
    const turn = {
      inputTokens: 1_000_000,
      outputTokens: 1_000_000,
      totalTokens: 2_000_000,
      cachedInputTokens: 500_000,
      cacheWriteTokens: 100_000,
      reasoningTokens: 250_000,
    };
    // 400k plain input at $10, 500k read at $1, 100k written at $10 (input rate), 750k output at $20, 250k reasoning at $40.
    expect(overrideCost(price, turn)).toBeCloseTo(4 + 0.5 + 1 + 15 + 10, 9);
  });
});

describe('isLocalEndpoint', () => {
  it('is true only for OpenAI-compatible endpoints on a loopback address', () => {
    expect(isLocalEndpoint({ name: 'vllm', api: 'openai-compatible', baseUrl: 'http://localhost:8000/v1' })).toBe(true);
    expect(isLocalEndpoint({ name: 'lan', api: 'openai-compatible', baseUrl: 'http://10.0.0.5:8000/v1' })).toBe(false);
    // A proxy or test double for a hosted API on this machine still bills the hosted prices.
    expect(isLocalEndpoint({ name: 'anthropic', api: 'anthropic-messages', baseUrl: 'http://127.0.0.1:9999' })).toBe(false);
  });
});
