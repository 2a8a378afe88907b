/**
 * `ModelClient` over the Vercel AI SDK: one `generateText` (or `streamText`) step per
 * turn, with tools declared but never executed by the SDK — the agent loop runs them
 * through weft's `ToolExecutor`. Rate limits, server errors and resets are retried by
 * `model-retry.ts` (each retry reported through `onRetry`); what is left becomes a
 * `WeftError` from `model-errors.ts`.
 */
import {
  generateText,
  InvalidToolInputError,
  jsonSchema,
  NoSuchToolError,
  streamText,
  tool,
  type CallWarning,
  type LanguageModel,
  type LanguageModelUsage,
  type ModelMessage,
  type ToolSet,
  type TypedToolCall,
} from 'ai';
import { errorMessage } from '../../core/errors.js';
import type { ImageInput, ModelClient, ModelRequest, ModelToolCall, ModelTurn, ToolDialect } from '../model-client.js';
import { modelCallError, type ModelErrorContext } from './model-errors.js';
import { withRetries } from './model-retry.js';

export interface AiSdkModelClientOptions {
  provider: string;
  modelId: string;
  toolDialect: ToolDialect;
  imageInput: ImageInput;
  model: LanguageModel;
  maxRetries: number;
  streaming: boolean;
  errorContext: ModelErrorContext;
}

interface StepOutcome {
  warnings: CallWarning[] | undefined;
  text: string;
  toolCalls: TypedToolCall<ToolSet>[];
  usage: LanguageModelUsage;
  finishReason: string;
  messages: ModelMessage[];
}

function toolSet(request: ModelRequest): ToolSet | undefined {
  if (request.tools.length === 0) return undefined;
  return Object.fromEntries(
    request.tools.map((spec) => [spec.name, tool({ description: spec.description, inputSchema: jsonSchema(spec.inputSchema) })]),
  );
}

function invalidReason(call: TypedToolCall<ToolSet>, tools: readonly string[]): string | undefined {
  if (!call.invalid) return undefined;
  if (NoSuchToolError.isInstance(call.error)) return `Unknown tool '${call.toolName}'. Available tools: ${tools.join(', ') || '(none)'}.`;
  if (InvalidToolInputError.isInstance(call.error)) {
    const cause = call.error.cause === undefined ? '' : ` (${errorMessage(call.error.cause).split('\n')[0]})`;
    return `The arguments of this '${call.toolName}' call are not valid JSON${cause}. Call the tool again with one JSON object that matches its schema.`;
  }
  return `This '${call.toolName}' call could not be read: ${errorMessage(call.error)}`;
}

function warningText(warning: CallWarning): string {
  switch (warning.type) {
    case 'unsupported':
    case 'compatibility':
      return `${warning.type} feature '${warning.feature}'${warning.details ? `: ${warning.details}` : ''}`;
    case 'other':
      return warning.message;
    default: {
      const unreachable: never = warning;
      return String(unreachable);
    }
  }
}

function usageOf(usage: LanguageModelUsage): ModelTurn['usage'] {
  const inputTokens = usage.inputTokens ?? 0;
  const outputTokens = usage.outputTokens ?? 0;
  // Only what the provider reported: an absent count is not a zero.
  const cached = usage.inputTokenDetails?.cacheReadTokens ?? usage.cachedInputTokens;
  const reasoning = usage.outputTokenDetails?.reasoningTokens ?? usage.reasoningTokens;
  const cacheWrite = usage.inputTokenDetails?.cacheWriteTokens;
  return {
    inputTokens,
    outputTokens,
    totalTokens: usage.totalTokens ?? inputTokens + outputTokens,
    ...(cached === undefined ? {} : { cachedInputTokens: cached }),
    ...(cacheWrite === undefined ? {} : { cacheWriteTokens: cacheWrite }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
  };
}

export class AiSdkModelClient implements ModelClient {
  readonly provider: string;
  readonly modelId: string;
  readonly toolDialect: ToolDialect;
  readonly imageInput: ImageInput;
  readonly #options: AiSdkModelClientOptions;

  constructor(options: AiSdkModelClientOptions) {
    // The SDK would print provider warnings to the console (stdout may be an MCP stream);
    // they come back with each turn instead and go to weft's logger.
    globalThis.AI_SDK_LOG_WARNINGS = false;
    this.#options = options;
    this.provider = options.provider;
    this.modelId = options.modelId;
    this.toolDialect = options.toolDialect;
    this.imageInput = options.imageInput;
  }

  async generate(request: ModelRequest): Promise<ModelTurn> {
    let step: StepOutcome;
    // A streamed answer that failed halfway is not sent again: its text was already shown.
    let delivered = false;
    const attempt = () => (this.#options.streaming ? this.#stream(request, () => (delivered = true)) : this.#generate(request));
    try {
      step = await withRetries(
        attempt,
        { maxRetries: this.#options.maxRetries, signal: request.signal, ...(request.onRetry ? { onRetry: request.onRetry } : {}) },
        () => !delivered,
      );
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason ?? error;
      throw modelCallError(error, this.#options.errorContext) ?? error;
    }
    const names = request.tools.map((spec) => spec.name);
    const toolCalls: ModelToolCall[] = step.toolCalls.map((call) => {
      const invalid = invalidReason(call, names);
      return { id: call.toolCallId, name: call.toolName, input: call.input, ...(invalid === undefined ? {} : { invalid }) };
    });
    return {
      text: step.text,
      toolCalls,
      usage: usageOf(step.usage),
      finishReason: step.finishReason,
      warnings: (step.warnings ?? []).map((warning) => `${this.provider} (model '${this.modelId}'): ${warningText(warning)}`),
      // Tool results are the loop's business: keep only the assistant's own message.
      messages: step.messages.filter((message) => message.role === 'assistant'),
    };
  }

  #settings(request: ModelRequest) {
    return {
      model: this.#options.model,
      ...(request.system === undefined ? {} : { system: request.system }),
      messages: request.messages,
      tools: toolSet(request),
      ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
      abortSignal: request.signal,
      // Retries are `withRetries`'s, so each one can be shown.
      maxRetries: 0,
    };
  }

  async #generate(request: ModelRequest): Promise<StepOutcome> {
    const result = await generateText(this.#settings(request));
    return {
      warnings: result.warnings,
      text: result.text,
      toolCalls: result.toolCalls,
      usage: result.usage,
      finishReason: result.finishReason,
      messages: result.response.messages,
    };
  }

  async #stream(request: ModelRequest, onDelivered: () => void): Promise<StepOutcome> {
    // Errors arrive as stream parts; the default handler would print them to the console.
    const result = streamText({ ...this.#settings(request), onError: () => {} });
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') {
        onDelivered();
        request.onTextDelta?.(part.text);
      } else if (part.type === 'error') throw part.error;
      else if (part.type === 'abort') throw request.signal.reason ?? new Error('aborted');
    }
    const [warnings, text, toolCalls, usage, finishReason, response] = await Promise.all([
      result.warnings,
      result.text,
      result.toolCalls,
      result.usage,
      result.finishReason,
      result.response,
    ]);
    return { warnings, text, toolCalls, usage, finishReason, messages: response.messages };
  }
}
