/**
 * What a model turn cost, estimated: `[llm.prices]` overrides first (exact
 * `provider:model`, then patterns such as `ollama:*`), then local endpoints at $0, then
 * the bundled price table of `@pydantic/genai-prices` (tiered prices, cache reads and
 * writes priced apart). The table is ~800 KB of JavaScript, so it is imported on the
 * first turn that needs it, never at start-up. A model nobody prices is *unpriced*, never $0.
 */
import { modelPatternMatches } from '../../core/settings/llm-limits.js';
import type { calcPrice as calcPriceType } from '@pydantic/genai-prices';
import type { LlmPriceSetting } from '../../core/settings/settings.js';
import type { TokenUsage } from '../../runs/model/token-usage.js';
import type { ModelApi } from '../providers/provider-catalog.js';

/** The provider a turn went to, as resolved from settings. */
export interface PricedProvider {
  name: string;
  api: ModelApi;
  baseUrl?: string;
}

/** The cost fields a priced turn adds to its usage: one of the two. */
export type TurnPrice = { estimatedCostUsd: number } | { unpricedTurns: 1 };

type CalcPrice = typeof calcPriceType;

let table: Promise<CalcPrice> | undefined;

/** The bundled price table's calculator, imported once. */
export function loadPriceTable(): Promise<CalcPrice> {
  table ??= import('@pydantic/genai-prices').then((module) => module.calcPrice);
  return table;
}

/** genai-prices' provider ids for the APIs weft speaks; OpenAI-compatible endpoints go by their own name. */
function tableProviderId(provider: PricedProvider): string {
  switch (provider.api) {
    case 'anthropic-messages':
      return 'anthropic';
    case 'openai-responses':
    case 'openai-chat':
      return 'openai';
    case 'gemini':
      return 'google';
    case 'openai-compatible':
      return provider.name;
    default: {
      const unreachable: never = provider.api;
      return unreachable;
    }
  }
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[?::1\]?)$/i;

/** An OpenAI-compatible endpoint on this machine (Ollama, LM Studio, vLLM, llama.cpp): it costs nothing per token. */
export function isLocalEndpoint(provider: PricedProvider): boolean {
  if (provider.api !== 'openai-compatible' || provider.baseUrl === undefined) return false;
  try {
    return LOOPBACK.test(new URL(provider.baseUrl).hostname);
  } catch {
    return false;
  }
}

/** The override for `provider:model`: the exact key, else the longest matching pattern. */
export function priceOverride(
  prices: Readonly<Record<string, LlmPriceSetting>>,
  provider: string,
  model: string,
): LlmPriceSetting | undefined {
  const key = `${provider}:${model}`;
  if (Object.hasOwn(prices, key)) return prices[key];
  const patterns = Object.keys(prices)
    .filter((pattern) => pattern.includes('*') && modelPatternMatches(pattern, key))
    .sort((a, b) => b.length - a.length);
  return patterns.length > 0 ? prices[patterns[0]!] : undefined;
}

/** Dollars for `usage` at the per-million-token rates of an override; cache and reasoning rates default to the input and output rates. */
export function overrideCost(price: LlmPriceSetting, usage: TokenUsage): number {
  const cacheRead = usage.cachedInputTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const reasoning = usage.reasoningTokens ?? 0;
  const plainInput = Math.max(0, usage.inputTokens - cacheRead - cacheWrite);
  const plainOutput = Math.max(0, usage.outputTokens - reasoning);
  const dollars =
    plainInput * price.inputPerMtok +
    cacheRead * (price.cacheReadPerMtok ?? price.inputPerMtok) +
    cacheWrite * (price.cacheWritePerMtok ?? price.inputPerMtok) +
    plainOutput * price.outputPerMtok +
    reasoning * (price.reasoningPerMtok ?? price.outputPerMtok);
  return dollars / 1_000_000;
}

/**
 * Estimates what one turn cost.
 *
 * @example await priceTurn({ name: 'anthropic', api: 'anthropic-messages' }, 'claude-sonnet-4-5', usage, {}) // → { estimatedCostUsd: 0.004035 }
 */
export async function priceTurn(
  provider: PricedProvider,
  model: string,
  usage: TokenUsage,
  prices: Readonly<Record<string, LlmPriceSetting>>,
): Promise<TurnPrice> {
  const override = priceOverride(prices, provider.name, model);
  if (override !== undefined) return { estimatedCostUsd: overrideCost(override, usage) };
  if (isLocalEndpoint(provider)) return { estimatedCostUsd: 0 };
  const calcPrice = await loadPriceTable();
  let result: ReturnType<CalcPrice>;
  try {
    result = calcPrice(
      {
        input_tokens: usage.inputTokens,
        output_tokens: usage.outputTokens,
        ...(usage.cachedInputTokens === undefined ? {} : { cache_read_tokens: usage.cachedInputTokens }),
        ...(usage.cacheWriteTokens === undefined ? {} : { cache_write_tokens: usage.cacheWriteTokens }),
      },
      model,
      { providerId: tableProviderId(provider) },
    );
  } catch {
    // The table refuses counts it finds inconsistent (cache parts over the input): no guess.
    result = null;
  }
  return result === null ? { unpricedTurns: 1 } : { estimatedCostUsd: result.total_price };
}
