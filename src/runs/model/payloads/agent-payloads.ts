/**
 * Payloads of an agent stage's transcript: its start, model turns, streamed text, retried
 * requests, tool calls and delivered messages (`AGENT_EVENT` in `../event-types.ts`).
 */
import type { JsonValue } from '../json.js';

export type AgentStartedPayload = {
  kind: string;
  provider: string;
  model: string;
  tools: string[];
  /** Tools the provider cannot take (their schemas), left out of the model's list. */
  droppedTools: string[];
  maxTurns: number;
  maxTokens: number | null;
  /** CLI stages: the CLI (`provider` is its display name) and its session id, which a later attempt of the stage resumes. */
  cli?: string;
  session?: string;
};

/** `cachedInputTokens` and `reasoningTokens` are present only where the provider reports them. */
export type TokenUsagePayload = {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Input tokens read from the provider's prompt cache (part of `inputTokens`). */
  cachedInputTokens?: number;
  /** Output tokens spent on reasoning (part of `outputTokens`). */
  reasoningTokens?: number;
  /** Input tokens written to the provider's prompt cache (part of `inputTokens`), where reported. */
  cacheWriteTokens?: number;
  /**
   * US dollars the provider or CLI backend reported for these turns (Claude Code's
   * `total_cost_usd`); a stage's turns add up to what the CLI reported. Logs before 0.x
   * named it `costUsd`, read as the same.
   */
  reportedCostUsd?: number;
  /** US dollars estimated from the price table (`[llm.prices]`, else the bundled one) for the turns nobody reported a cost for. */
  estimatedCostUsd?: number;
  /** Turns whose model has no known price: their cost is in neither figure. */
  unpricedTurns?: number;
};

export type ModelTurnFinishedPayload = {
  turn: number;
  text: string;
  toolCalls: { callId: string; tool: string; arguments: JsonValue }[];
  usage: TokenUsagePayload;
  finishReason: string;
  /** `provider:model` the turn went to, for spend by model; absent in CLI stages and older logs. */
  model?: string;
};

export type ModelTextStreamedPayload = {
  /** The turn this text belongs to (1-based, as in `model-turn-finished`). */
  turn: number;
  /** The text that arrived since the previous event of this turn. */
  text: string;
};

export type ModelRequestRetriedPayload = {
  turn: number;
  /** 1 for the first retry. */
  attempt: number;
  maxRetries: number;
  /** How long weft waits before sending the request again. */
  delayMs: number;
  /** The HTTP status the provider answered with; null for a connection reset or timeout. */
  status: number | null;
  /** What went wrong, secrets redacted. */
  error: string;
};

/** A tool call of a `tool` stage, or of an agent stage (with the model's `callId` and the `turn`). */
export type ToolCallStartedPayload = {
  tool: string;
  arguments: JsonValue;
  callId?: string;
  turn?: number;
};

export type ToolCallFinishedPayload = {
  tool: string;
  callId?: string;
  turn?: number;
  isError: boolean;
  durationMs: number;
  text: string;
  artifactPath: string | null;
  structuredContent?: JsonValue;
  /** Images and audio as a size note each: the log keeps no base64. */
  media?: { type: string; mimeType: string; bytes: number }[];
};

/**
 * A model call waited for a model-limit slot (`[llm.limits]`) before it started: written
 * once per throttled call, when the wait ends. Not a retry: nothing was sent before.
 */
export type ModelCallThrottledPayload = {
  turn: number;
  /** `provider:model` of the call. */
  model: string;
  /** The `[llm.limits]` pattern whose pool held it back first. */
  pattern: string;
  /** Which of that pool's limits: `concurrent`, `requests_per_minute` or `tokens_per_minute`. */
  limit: 'concurrent' | 'requests_per_minute' | 'tokens_per_minute';
  /** From its first look at the limits to its start. */
  waitedMs: number;
};

/** A message the agent stage passed on to its model. */
export type MessageDeliveredPayload = {
  turn: number;
  /** The `seq` of the `message-sent` event. */
  messageSeq: number;
  text: string;
};
