/**
 * A CLI's normalised stream ({@link CliEvent}) as the agent transcript events weft's own
 * agent stages write — `model-turn-finished`, `tool-call-started`, `tool-call-finished` —
 * so `weft run`, `logs`, `inspect`, the MCP server and the dashboard show a CLI stage the
 * way they show any agent stage. A turn is the model text and tool calls up to the CLI's
 * `turn-finished` (or its first tool result, or the end); its tool calls are recorded as
 * started when the turn is. When the CLI reports session totals at the end, the last turn
 * carries what the turns before it did not, so the turns add up to the session's usage
 * and cost.
 */
import {
  AGENT_EVENT,
  type ModelTurnFinishedPayload,
  type ToolCallFinishedPayload,
  type ToolCallStartedPayload,
  type TokenUsagePayload,
} from '../../runs/model/event-types.js';
import type { NewRunEvent } from '../../runs/model/run-event.js';
import { clipText } from '../../core/clip-text.js';
import { clipJson, MAX_EVENT_TEXT, type TurnCall } from '../transcript-events.js';
import type { CliEvent, CliUsage } from './cli-adapter.js';

export interface CliFinal {
  text: string;
  isError: boolean;
  permissionDenials: { tool: string; callId?: string }[];
}

/**
 * @example
 * const transcript = new CliTranscript(Date.now);
 * await stage.emit(transcript.read(parser.line(line)));
 * transcript.final; // the answer, once the CLI gave it
 */
export class CliTranscript {
  readonly #clock: () => number;
  #turn = 0;
  #text: string[] = [];
  #calls: (TurnCall & { requestedAt: number })[] = [];
  readonly #running = new Map<string, { tool: string; startedAt: number }>();
  readonly #spent = { inputTokens: 0, outputTokens: 0, costUsd: 0 };
  #final: CliFinal | undefined;
  /** Model turns recorded so far. */
  turns = 0;
  /** Lines that were not the CLI's stream format. */
  readonly malformed: string[] = [];
  /** Errors the CLI reported (e.g. it needs a login). */
  readonly errors: { message: string; loginRequired: boolean }[] = [];
  /** The session the CLI reported first. */
  session: { sessionId: string; model?: string; tools?: string[] } | undefined;

  constructor(clock: () => number) {
    this.#clock = clock;
  }

  get final(): CliFinal | undefined {
    return this.#final;
  }

  /** Tool calls asked for and not yet answered (a turn boundary has none). */
  get runningCalls(): number {
    return this.#running.size + this.#calls.length;
  }

  /** The events for one line's worth of CLI events. */
  read(events: readonly CliEvent[]): NewRunEvent[] {
    const out: NewRunEvent[] = [];
    events.forEach((event, index) => {
      const next = events[index + 1];
      switch (event.kind) {
        case 'session-started':
          this.session ??= {
            sessionId: event.sessionId,
            ...(event.model === undefined ? {} : { model: event.model }),
            ...(event.tools === undefined ? {} : { tools: event.tools }),
          };
          return;
        case 'text':
          this.#text.push(event.text);
          return;
        case 'tool-call-requested':
          // A call's time counts from when the model asked for it: the CLI may run it before weft hears the turn ended.
          this.#calls.push({ callId: event.callId, tool: event.tool, arguments: event.arguments, requestedAt: this.#clock() });
          return;
        case 'turn-finished': {
          const closing = next?.kind === 'final' ? next.usage : undefined;
          out.push(...this.#endTurn(event.usage, closing, event.finishReason));
          return;
        }
        case 'tool-result': {
          out.push(...this.#endTurn(undefined, undefined, undefined));
          const call = this.#running.get(event.callId);
          this.#running.delete(event.callId);
          const payload: ToolCallFinishedPayload = {
            tool: call?.tool ?? 'unknown',
            callId: event.callId,
            turn: this.#turn,
            isError: event.isError,
            durationMs: call === undefined ? 0 : Math.max(0, Math.round(this.#clock() - call.startedAt)),
            text: clipText(event.text, MAX_EVENT_TEXT),
            artifactPath: null,
            ...(event.structuredContent === undefined ? {} : { structuredContent: clipJson(event.structuredContent) }),
          };
          out.push({ type: AGENT_EVENT.toolCallFinished, payload });
          return;
        }
        case 'final':
          out.push(...this.#endTurn(undefined, event.usage, undefined));
          this.#final = { text: event.text, isError: event.isError, permissionDenials: event.permissionDenials ?? [] };
          return;
        case 'error':
          this.errors.push({ message: event.message, loginRequired: event.loginRequired === true });
          return;
        case 'malformed':
          this.malformed.push(event.line);
          return;
        default: {
          const unknown: never = event;
          return unknown;
        }
      }
    });
    return out;
  }

  /** Records the open turn, if any; `closing` (session totals) tops its usage up to them. */
  #endTurn(reported: CliUsage | undefined, closing: CliUsage | undefined, finishReason: string | undefined): NewRunEvent[] {
    if (this.#text.length === 0 && this.#calls.length === 0) return [];
    this.#turn += 1;
    this.turns += 1;
    const usage = this.#usage(reported, closing);
    const calls = this.#calls;
    const turnPayload: ModelTurnFinishedPayload = {
      turn: this.#turn,
      text: clipText(this.#text.join('\n\n'), MAX_EVENT_TEXT),
      toolCalls: calls.map((call) => ({ callId: call.callId, tool: call.tool, arguments: clipJson(call.arguments) })),
      usage,
      finishReason: finishReason ?? (calls.length > 0 ? 'tool-calls' : 'stop'),
    };
    const turnEvent: NewRunEvent = { type: AGENT_EVENT.modelTurnFinished, payload: turnPayload };
    this.#text = [];
    this.#calls = [];
    const started = calls.map((call): NewRunEvent => {
      this.#running.set(call.callId, { tool: call.tool, startedAt: call.requestedAt });
      return {
        type: AGENT_EVENT.toolCallStarted,
        payload: {
          tool: call.tool,
          arguments: clipJson(call.arguments),
          callId: call.callId,
          turn: this.#turn,
        } satisfies ToolCallStartedPayload,
      };
    });
    return [turnEvent, ...started];
  }

  #usage(reported: CliUsage | undefined, closing: CliUsage | undefined): TokenUsagePayload {
    const spent = this.#spent;
    const input = Math.max(reported?.inputTokens ?? 0, (closing?.inputTokens ?? 0) - spent.inputTokens);
    const output = Math.max(reported?.outputTokens ?? 0, (closing?.outputTokens ?? 0) - spent.outputTokens);
    const cost = closing?.costUsd !== undefined ? Math.max(0, closing.costUsd - spent.costUsd) : reported?.costUsd;
    spent.inputTokens += input;
    spent.outputTokens += output;
    spent.costUsd += cost ?? 0;
    return {
      inputTokens: input,
      outputTokens: output,
      totalTokens: input + output,
      ...(cost === undefined ? {} : { reportedCostUsd: cost }),
    };
  }
}
