/**
 * A run's transcript as readable entries, for pairing (`weft pair`, `weft_run_pair`
 * action `transcript`): what the agent said each turn, the tools it called and what they
 * returned (abbreviated), the messages people sent and when the agent read them, pair
 * sessions, questions, and where stages and the run started and ended. Every entry keeps
 * the seq of its event, so a reader can ask for "everything after this" and miss nothing.
 */
import { AGENT_EVENT, ENGINE_EVENT, RUN_EVENT, PAIR_END_REASON } from './model/event-types.js';
import { formatDuration } from '../core/duration.js';
import type { JsonValue } from './model/json.js';
import type { RunEvent } from './model/run-event.js';

/** The event types a transcript shows, in the order a reader meets them. */
export const TRANSCRIPT_EVENT_TYPES: readonly string[] = [
  RUN_EVENT.runStatusChanged,
  ENGINE_EVENT.stageStarted,
  ENGINE_EVENT.stageFinished,
  AGENT_EVENT.agentStarted,
  AGENT_EVENT.modelTurnFinished,
  RUN_EVENT.toolCallStarted,
  RUN_EVENT.toolCallFinished,
  RUN_EVENT.questionAsked,
  RUN_EVENT.questionAnswered,
  ENGINE_EVENT.messageSent,
  AGENT_EVENT.messageDelivered,
  RUN_EVENT.pairStarted,
  RUN_EVENT.pairEnded,
];

/**
 * Pieces of the model's text as it streams in, shown only to a reader that asks for them
 * (a terminal showing the answer live); the turn's whole text still comes with its turn.
 */
export const STREAMED_TEXT_TYPE: string = AGENT_EVENT.modelTextStreamed;

/** What the model says in one turn is kept up to this many characters; the full text stays in the event. */
export const MODEL_TEXT_LIMIT = 4000;
/** Tool arguments and results are abbreviated to this many characters. */
export const TOOL_TEXT_LIMIT = 300;

export interface TranscriptEntry {
  /** The seq of the event the entry shows. */
  seq: number;
  /** Epoch ms. */
  at: number;
  /** The event type, e.g. `model-turn-finished`. */
  type: string;
  stageId: string | null;
  /** The pair session a message or pair event belongs to. */
  sessionId: string | null;
  /** One readable line (a model's answer may span several). */
  text: string;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}… [${text.length - max + 1} more characters]` : text;
}

/** Collapses whitespace, for values shown on one line (tool arguments and results). */
function oneLine(value: JsonValue | undefined, max: number): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  return clip(text.replace(/\s+/g, ' ').trim(), max);
}

function str(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value);
}

function toolNames(calls: JsonValue | undefined): string[] {
  if (!Array.isArray(calls)) return [];
  return calls
    .map((call) => (call !== null && typeof call === 'object' && !Array.isArray(call) ? str(call.tool) : ''))
    .filter((name) => name !== '');
}

function describeEvent(event: RunEvent): string | undefined {
  const p = event.payload;
  const stage = event.stageId ?? '?';
  switch (event.type) {
    case RUN_EVENT.runStatusChanged:
      return `run ${str(p.to)}${p.reason ? ` — ${str(p.reason)}` : ''}`;
    case ENGINE_EVENT.stageStarted:
      return `stage ${stage} started (${str(p.kind)})`;
    case ENGINE_EVENT.stageFinished:
      return `stage ${stage} ${str(p.status)}${p.error ? `: ${oneLine(p.error, TOOL_TEXT_LIMIT)}` : ''}`;
    case AGENT_EVENT.agentStarted:
      return `agent on ${str(p.provider)}:${str(p.model)} with ${Array.isArray(p.tools) ? p.tools.length : 0} tools (max ${str(p.maxTurns)} turns)`;
    case AGENT_EVENT.modelTurnFinished: {
      const said = str(p.text).trim();
      const calls = toolNames(p.toolCalls);
      return `turn ${str(p.turn)}: ${said === '' ? '(no text)' : clip(said, MODEL_TEXT_LIMIT)}${calls.length > 0 ? ` → calls ${calls.join(', ')}` : ''}`;
    }
    case AGENT_EVENT.modelTextStreamed:
      return str(p.text);
    case RUN_EVENT.toolCallStarted:
      return `call ${str(p.tool)} ${oneLine(p.arguments, TOOL_TEXT_LIMIT)}`;
    case RUN_EVENT.toolCallFinished: {
      const took = typeof p.durationMs === 'number' ? ` (${formatDuration(p.durationMs)})` : '';
      return `${p.isError === true ? 'error from' : 'result of'} ${str(p.tool)}${took}: ${oneLine(p.text, TOOL_TEXT_LIMIT)}`;
    }
    case RUN_EVENT.questionAsked:
      return `question ${str(p.questionId)}: ${oneLine(p.prompt, MODEL_TEXT_LIMIT)}`;
    case RUN_EVENT.questionAnswered:
      return `answered ${str(p.questionId)}: ${oneLine(p.answer, TOOL_TEXT_LIMIT)}`;
    case ENGINE_EVENT.messageSent:
      return `message${event.stageId ? ` to ${event.stageId}` : ''}: ${clip(str(p.text), MODEL_TEXT_LIMIT)}`;
    case AGENT_EVENT.messageDelivered:
      return `agent read message #${str(p.messageSeq)} on turn ${str(p.turn)}: ${oneLine(p.text, TOOL_TEXT_LIMIT)}`;
    case RUN_EVENT.pairStarted:
      return `pair session ${str(p.sessionId)} started by ${str(p.by)} on ${str(p.stageId)}`;
    case RUN_EVENT.pairEnded:
      return `pair session ${str(p.sessionId)} ended${p.reason === PAIR_END_REASON.stageFinished ? ': the stage finished' : ''}`;
    default:
      return undefined;
  }
}

/**
 * The entry for one event, or undefined for events a transcript does not show.
 *
 * @example transcriptEntry({ runId, seq: 7, at, type: 'message-sent', stageId: 'work@1', payload: { text: 'Use tabs', sessionId } })?.text // → 'message to work@1: Use tabs'
 */
export function transcriptEntry(event: RunEvent): TranscriptEntry | undefined {
  const text = describeEvent(event);
  if (text === undefined) return undefined;
  const sessionId = typeof event.payload.sessionId === 'string' ? event.payload.sessionId : null;
  return { seq: event.seq, at: event.at, type: event.type, stageId: event.stageId ?? null, sessionId, text };
}
