/**
 * The agent layer's view of a language model: one request in, one model turn out. The
 * loop never sees a provider; providers implement this (over the AI SDK in
 * `providers/ai-sdk-model-client.ts`), and a test double can too.
 *
 * The transcript uses the AI SDK's provider-neutral `ModelMessage`, because assistant
 * messages carry provider metadata that must go back unchanged on the next turn
 * (Gemini thought signatures, OpenAI Responses item ids, Anthropic thinking signatures).
 */
import type { ModelMessage } from 'ai';
import type { JsonSchema } from '../core/json-schema.js';
import { addTokenUsage, NO_TOKENS, type TokenUsage } from '../runs/model/token-usage.js';
import type { ModelCallThrottle } from '../runs/engine/model-call-gate.js';

export type { ModelMessage } from 'ai';

/** Which naming and schema rules tool definitions must follow (see `tool-schemas.ts`). */
export type ToolDialect = 'anthropic' | 'openai' | 'gemini' | 'openai-compatible';

/**
 * Where a wire API takes images. Anthropic Messages, OpenAI Responses and Gemini take them
 * in user messages and in tool results; Chat Completions only in user messages (a tool
 * message is text there, so the SDK would send base64 as JSON text).
 */
export interface ImageInput {
  messages: boolean;
  toolResults: boolean;
}

/** A tool as the model is shown it: already provider-safe. */
export interface ModelToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

export interface ModelRequest {
  system?: string;
  messages: ModelMessage[];
  tools: ModelToolSpec[];
  maxOutputTokens?: number;
  signal: AbortSignal;
  /** Streaming clients report text as it arrives. */
  onTextDelta?: (delta: string) => void;
  /** Called before each retry of a request that failed in a way that can pass (429, 5xx, a reset); the retry waits for it. */
  onRetry?: (retry: ModelRetry) => Promise<void> | void;
  /** Called once, before the request is sent, when it had to wait for a model-limit slot (`[llm.limits]`). */
  onThrottled?: (throttle: ModelCallThrottle) => Promise<void> | void;
}

/** A retry the client is about to make. */
export interface ModelRetry {
  /** 1 for the first retry. */
  attempt: number;
  maxRetries: number;
  delayMs: number;
  /** The HTTP status, or null for a reset or timeout. */
  status: number | null;
  /** What went wrong, secrets redacted. */
  error: string;
}

export interface ModelToolCall {
  id: string;
  /** The provider-safe name the model used. */
  name: string;
  /** Parsed arguments; the raw text when they were not JSON. */
  input: unknown;
  /** Set when the call cannot be executed as sent (arguments not JSON, unknown tool). */
  invalid?: string;
}

/** Input, output and total tokens; cached input and reasoning tokens where the provider reports them. */
export type ModelUsage = TokenUsage;

/** `stop`, `tool-calls`, `length`, `content-filter`, `error`, `other`. */
export type ModelFinishReason = string;

export interface ModelTurn {
  text: string;
  toolCalls: ModelToolCall[];
  usage: ModelUsage;
  finishReason: ModelFinishReason;
  /** What the provider said it ignored or approximated (unsupported settings, …). */
  warnings?: string[];
  /** The assistant message to append to the transcript (tool results are added by the loop). */
  messages: ModelMessage[];
}

/**
 * A configured model.
 *
 * @example
 * const turn = await client.generate({ system, messages, tools: [], signal });
 * console.log(turn.text, turn.usage.totalTokens);
 */
export interface ModelClient {
  /** The provider name as configured (`anthropic`, `ollama`, …). */
  readonly provider: string;
  readonly modelId: string;
  readonly toolDialect: ToolDialect;
  /** Where images may be sent; absent means nowhere (they become `[image content]`). */
  readonly imageInput?: ImageInput;
  /** One model turn. Throws a `WeftError` (`MODEL_*`) when the provider fails after retries. */
  generate(request: ModelRequest): Promise<ModelTurn>;
}

export const EMPTY_USAGE: ModelUsage = NO_TOKENS;

export const addUsage: (a: ModelUsage, b: ModelUsage) => ModelUsage = addTokenUsage;
