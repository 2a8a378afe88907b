/**
 * Answers an MCP server's `sampling/createMessage` with a weft model: the server's
 * `systemPrompt` and messages (text; images when the model's API takes them in messages,
 * else `[image content]`), its `maxTokens` as the output limit, and no tools. Model
 * preferences, temperature, stop sequences and `includeContext` are hints the MCP spec
 * lets a client ignore; weft ignores them. Who may sample, and events (retries are reported
 * through `onRetry`), are the caller's.
 */
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  SamplingMessage,
  SamplingMessageContentBlock,
} from '@modelcontextprotocol/client';
import type { ImageInput, ModelClient, ModelMessage, ModelRetry, ModelUsage } from './model-client.js';

export interface SamplingOutcome {
  result: CreateMessageResult;
  usage: ModelUsage;
}

type UserPart = { type: 'text'; text: string } | { type: 'image'; image: string; mediaType: string };

function blocksOf(message: SamplingMessage): SamplingMessageContentBlock[] {
  return Array.isArray(message.content) ? message.content : [message.content];
}

function placeholder(block: SamplingMessageContentBlock): string {
  return `[${block.type} content]`;
}

function userParts(blocks: readonly SamplingMessageContentBlock[], imageInput: ImageInput | undefined): UserPart[] {
  return blocks.map((block): UserPart => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    if (block.type === 'image' && imageInput?.messages === true) return { type: 'image', image: block.data, mediaType: block.mimeType };
    return { type: 'text', text: placeholder(block) };
  });
}

/** A sampling message as text: its text blocks, and a placeholder for anything else. */
export function samplingMessageText(message: SamplingMessage): string {
  return blocksOf(message)
    .map((block) => (block.type === 'text' ? block.text : placeholder(block)))
    .join('\n');
}

/** Sampling messages as the model's transcript; an assistant message keeps only its text. */
export function samplingMessages(messages: readonly SamplingMessage[], imageInput: ImageInput | undefined): ModelMessage[] {
  return messages.map((message): ModelMessage => {
    const blocks = blocksOf(message);
    if (message.role === 'assistant') return { role: 'assistant', content: samplingMessageText(message) };
    return { role: 'user', content: userParts(blocks, imageInput) };
  });
}

/** The model's finish reason in MCP's words (`endTurn`, `maxTokens`), else as the provider said it. */
export function samplingStopReason(finishReason: string): string {
  switch (finishReason) {
    case 'stop':
      return 'endTurn';
    case 'length':
      return 'maxTokens';
    default:
      return finishReason;
  }
}

/**
 * One model call for a sampling request. Throws what the client throws (a `WeftError`
 * with a `MODEL_*` code when the provider fails); `onRetry` hears each retry of it.
 *
 * @example
 * const { result } = await sampleWithModel(client, { messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 50 }, signal);
 * result.content; // → { type: 'text', text: 'Hello!' }
 */
export async function sampleWithModel(
  client: ModelClient,
  params: CreateMessageRequestParams,
  signal: AbortSignal,
  onRetry?: (retry: ModelRetry) => Promise<void>,
): Promise<SamplingOutcome> {
  const turn = await client.generate({
    ...(params.systemPrompt === undefined || params.systemPrompt === '' ? {} : { system: params.systemPrompt }),
    messages: samplingMessages(params.messages, client.imageInput),
    tools: [],
    maxOutputTokens: params.maxTokens,
    signal,
    ...(onRetry ? { onRetry } : {}),
  });
  return {
    result: {
      role: 'assistant',
      content: { type: 'text', text: turn.text },
      model: client.modelId,
      stopReason: samplingStopReason(turn.finishReason),
    },
    usage: turn.usage,
  };
}
