/**
 * A `ModelClient` whose calls go through the run's model limits (`[llm.limits]`): before
 * each call it waits at the stage's gate for a slot in every pool whose pattern matches
 * `provider:model`, tells the caller when it had to wait (`onThrottled`, so the loop can
 * record a `model-call-throttled` event — not a retry), and frees the slot when the call
 * ends, however it ends, with the tokens it used (0 when it failed: none are known).
 */
import { modelPatternMatches, type LlmLimitSetting } from '../core/settings/llm-limits.js';
import type { ModelCallGate } from '../runs/engine/model-call-gate.js';
import type { ModelLimitPool } from '../runs/model/model-limits.js';
import type { ModelClient, ModelRequest, ModelTurn } from './model-client.js';

/** The pools a call to `provider:model` falls under: every `[llm.limits]` table whose pattern matches. */
export function limitPools(
  limits: Readonly<Record<string, LlmLimitSetting>> | undefined,
  provider: string,
  model: string,
): ModelLimitPool[] {
  const key = `${provider}:${model}`;
  return Object.entries(limits ?? {})
    .filter(([pattern]) => modelPatternMatches(pattern, key))
    .map(([pattern, limit]) => ({ pattern, ...limit }));
}

/**
 * Wraps `client` when some pool applies to it and the stage has a gate; else returns it as is.
 *
 * @example const client = limitModelCalls(createModelClient(sources, options), llm.limits, stage.services.modelCalls);
 */
export function limitModelCalls(
  client: ModelClient,
  limits: Readonly<Record<string, LlmLimitSetting>> | undefined,
  gate: ModelCallGate | undefined,
): ModelClient {
  const pools = limitPools(limits, client.provider, client.modelId);
  if (gate === undefined || pools.length === 0) return client;
  return new LimitedModelClient(client, gate, pools);
}

class LimitedModelClient implements ModelClient {
  readonly provider: string;
  readonly modelId: string;
  readonly toolDialect: ModelClient['toolDialect'];
  readonly imageInput?: ModelClient['imageInput'];
  readonly #inner: ModelClient;
  readonly #gate: ModelCallGate;
  readonly #pools: readonly ModelLimitPool[];

  constructor(inner: ModelClient, gate: ModelCallGate, pools: readonly ModelLimitPool[]) {
    this.#inner = inner;
    this.provider = inner.provider;
    this.modelId = inner.modelId;
    this.toolDialect = inner.toolDialect;
    if (inner.imageInput !== undefined) this.imageInput = inner.imageInput;
    this.#gate = gate;
    this.#pools = pools;
  }

  async generate(request: ModelRequest): Promise<ModelTurn> {
    const { slot, throttled } = await this.#gate.enter(this.#pools, request.signal);
    let tokens = 0;
    try {
      if (throttled !== undefined) await request.onThrottled?.(throttled);
      const turn = await this.#inner.generate(request);
      tokens = turn.usage.totalTokens;
      return turn;
    } finally {
      await slot.end(tokens);
    }
  }
}
