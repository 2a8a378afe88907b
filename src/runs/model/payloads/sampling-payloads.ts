/**
 * Payloads of MCP sampling served by a run's model and of servers joining or leaving a
 * running run's toolbox (`SAMPLING_EVENT`, `MCP_EVENT` in `../event-types.ts`).
 */
import type { TokenUsagePayload } from './agent-payloads.js';

type SamplingBase = {
  server: string;
  provider: string;
  model: string;
};

export type SamplingRequestedPayload = SamplingBase & {
  maxTokens: number;
  /** How many messages the server sent. */
  messages: number;
  systemPrompt: boolean;
};

export type SamplingRequestRetriedPayload = SamplingBase & {
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

/** Either the answer (`usage`, `stopReason`, clipped `text`) or the `error`. */
export type SamplingFinishedPayload = SamplingBase & {
  durationMs: number;
  usage?: TokenUsagePayload;
  stopReason?: string | null;
  text?: string;
  error?: string;
};

/** A server added to a running run's toolbox: how its connection went. */
export type McpServerAddedPayload = {
  name: string;
  status: string;
  tools: number;
  error?: string;
};

export type McpServerRemovedPayload = {
  name: string;
};
