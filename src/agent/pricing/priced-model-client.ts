/**
 * A `ModelClient` whose turns carry their estimated cost: every turn (agent loop, prompt
 * stage, MCP sampling) goes through `createModelClient`, so pricing happens in one place.
 */
import type { LlmPriceSetting } from '../../core/settings/settings.js';
import type { ModelClient, ModelRequest, ModelTurn } from '../model-client.js';
import { priceTurn, type PricedProvider } from './model-pricing.js';

export class PricedModelClient implements ModelClient {
  readonly provider: string;
  readonly modelId: string;
  readonly toolDialect: ModelClient['toolDialect'];
  readonly imageInput?: ModelClient['imageInput'];
  readonly #inner: ModelClient;
  readonly #pricedAs: PricedProvider;
  readonly #prices: Readonly<Record<string, LlmPriceSetting>>;

  constructor(inner: ModelClient, pricedAs: PricedProvider, prices: Readonly<Record<string, LlmPriceSetting>>) {
    this.#inner = inner;
    this.provider = inner.provider;
    this.modelId = inner.modelId;
    this.toolDialect = inner.toolDialect;
    if (inner.imageInput !== undefined) this.imageInput = inner.imageInput;
    this.#pricedAs = pricedAs;
    this.#prices = prices;
  }

  async generate(request: ModelRequest): Promise<ModelTurn> {
    const turn = await this.#inner.generate(request);
    // A provider that reported its own cost is believed; the table only fills the gap.
    if (turn.usage.reportedCostUsd !== undefined) return turn;
    const price = await priceTurn(this.#pricedAs, this.modelId, turn.usage, this.#prices);
    return { ...turn, usage: { ...turn.usage, ...price } };
  }
}
