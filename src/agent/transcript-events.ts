/**
 * The events an agent stage writes, so its transcript can be read back (`weft logs`,
 * `weft_run_events`): the model and tools it got, every model turn, every tool call and
 * result, and the messages people sent it. Tool events use the payload names of `tool`
 * stages (`tool`, `arguments`, `isError`, `durationMs`, `text`, `artifactPath`) plus the
 * model's `callId` and the `turn`. Long texts are clipped; tool outputs over budget are
 * artifacts already.
 */
import {
  AGENT_EVENT,
  type AgentStartedPayload,
  type MessageDeliveredPayload,
  type ModelCallThrottledPayload,
  type ModelRequestRetriedPayload,
  type ModelTurnFinishedPayload,
  type TokenUsagePayload,
  type ToolCallFinishedPayload,
  type ToolCallStartedPayload,
} from '../runs/model/event-types.js';
import type { JsonValue } from '../runs/model/json.js';
import type { NewRunEvent } from '../runs/model/run-event.js';
import type { ToolCallOutcome } from '../tools/tool-executor.js';
import { resultText } from '../tools/tool.js';
import type { ModelRetry, ModelTurn, ModelUsage } from './model-client.js';
import { clipText } from '../core/clip-text.js';
import type { ModelCallThrottle } from '../runs/engine/model-call-gate.js';

/** Most characters of text one event keeps. */
export const MAX_EVENT_TEXT = 64 * 1024;

function clip(text: string): string {
  return clipText(text, MAX_EVENT_TEXT);
}

/** A JSON copy of `value`, or its clipped JSON text when it is large or not JSON. */
export function clipJson(value: unknown): JsonValue {
  const text = typeof value === 'string' ? undefined : JSON.stringify(value);
  if (text === undefined) return clip(String(value ?? ''));
  return text.length > MAX_EVENT_TEXT ? clip(text) : (JSON.parse(text) as JsonValue);
}

function usagePayload(usage: ModelUsage): TokenUsagePayload {
  return { ...usage };
}

export function agentStartedEvent(payload: AgentStartedPayload): NewRunEvent {
  return { type: AGENT_EVENT.agentStarted, payload };
}

export interface TurnCall {
  callId: string;
  /** The registry's name (what `tool` stages and approval rules use). */
  tool: string;
  arguments: unknown;
}

export function modelTurnEvent(turn: number, response: ModelTurn, calls: readonly TurnCall[], model?: string): NewRunEvent {
  return {
    type: AGENT_EVENT.modelTurnFinished,
    payload: {
      turn,
      text: clip(response.text),
      toolCalls: calls.map((call) => ({ callId: call.callId, tool: call.tool, arguments: clipJson(call.arguments) })),
      usage: usagePayload(response.usage),
      finishReason: response.finishReason,
      ...(model === undefined ? {} : { model }),
    } satisfies ModelTurnFinishedPayload,
  };
}

export function modelRetryEvent(turn: number, retry: ModelRetry): NewRunEvent {
  return { type: AGENT_EVENT.modelRequestRetried, payload: { turn, ...retry } satisfies ModelRequestRetriedPayload };
}

export function modelThrottledEvent(turn: number, model: string, throttle: ModelCallThrottle): NewRunEvent {
  return {
    type: AGENT_EVENT.modelCallThrottled,
    payload: {
      turn,
      model,
      pattern: throttle.pattern,
      limit: throttle.limit,
      waitedMs: throttle.waitedMs,
    } satisfies ModelCallThrottledPayload,
  };
}

export function toolCallStartedEvent(turn: number, call: TurnCall): NewRunEvent {
  return {
    type: AGENT_EVENT.toolCallStarted,
    payload: { tool: call.tool, arguments: clipJson(call.arguments), callId: call.callId, turn } satisfies ToolCallStartedPayload,
  };
}

export function toolCallFinishedEvent(turn: number, call: TurnCall, outcome: ToolCallOutcome): NewRunEvent {
  const payload: ToolCallFinishedPayload = {
    tool: call.tool,
    callId: call.callId,
    turn,
    isError: outcome.result.isError,
    durationMs: Math.round(outcome.durationMs),
    text: clip(resultText(outcome.result)),
    artifactPath: outcome.result.artifactPath ?? null,
  };
  if (outcome.result.structuredContent !== undefined) payload.structuredContent = clipJson(outcome.result.structuredContent);
  const media = mediaNotes(outcome.result.content);
  if (media.length > 0) payload.media = media;
  return { type: AGENT_EVENT.toolCallFinished, payload };
}

/** Images and audio in a result as a size note each: the log keeps no base64. */
function mediaNotes(content: ToolCallOutcome['result']['content']): NonNullable<ToolCallFinishedPayload['media']> {
  return content.flatMap((part) =>
    part.type === 'image' || part.type === 'audio'
      ? [{ type: part.type, mimeType: part.mimeType, bytes: Math.floor((part.data.length * 3) / 4) }]
      : [],
  );
}

export function messageDeliveredEvent(turn: number, message: { seq: number; text: string }): NewRunEvent {
  return {
    type: AGENT_EVENT.messageDelivered,
    payload: { turn, messageSeq: message.seq, text: clip(message.text) } satisfies MessageDeliveredPayload,
  };
}
