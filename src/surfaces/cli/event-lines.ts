/**
 * One readable line per run event, for `weft run` (following), `weft logs` and `weft
 * events` without `--json`. Events without a line of their own (internal bookkeeping)
 * return undefined.
 */
import { AGENT_EVENT, BUDGET_EVENT, ENGINE_EVENT, RUN_EVENT, PAIR_END_REASON, SAMPLING_EVENT } from '../../runs/model/event-types.js';
import { formatDuration } from '../../core/duration.js';
import type { RunEvent } from '../../runs/model/run-event.js';
import { formatUsd, readTokenUsage } from '../../runs/model/token-usage.js';
import { errorText, outputLines, tokensNote } from './stage-lines.js';

function clip(value: unknown, max = 120): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const line = (text ?? '').replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export interface EventLineOptions {
  /** `weft logs --full`: a stage's whole output, its lines kept; else cut to one line. Failure messages are whole either way. */
  full?: boolean;
  /** The turn's text was streamed live already: its line leaves the text out (and is dropped when nothing else is left). */
  textShown?: boolean;
}

/** A retry of a model request (an agent's turn, or a sampling request): what failed and when it is sent again. */
function retryLine(what: string, p: RunEvent['payload']): string {
  const delay = typeof p.delayMs === 'number' ? formatDuration(p.delayMs) : '?';
  return `  ↻ ${what} failed (${clip(p.error, 160)}); retry ${String(p.attempt)} of ${String(p.maxRetries)} in ${delay}`;
}

function budgetAmount(dimension: unknown, amount: unknown): string {
  const value = Number(amount);
  if (dimension === 'cost') return formatUsd(value);
  if (dimension === 'duration') return formatDuration(value);
  return `${Math.round(value)} tokens`;
}

/** `$0.90 of $1.00 (cost)`. */
function budgetAmounts(p: RunEvent['payload']): string {
  return `${budgetAmount(p.dimension, p.spent)} of ${budgetAmount(p.dimension, p.limit)} (${String(p.dimension)})`;
}

/** `budget`, or `stage 'write' budget` for a node's own. */
function budgetName(p: RunEvent['payload']): string {
  return typeof p.stage === 'string' ? `stage '${p.stage}' budget` : 'budget';
}

function budgetLimits(limits: unknown): string {
  const table = (limits ?? {}) as Record<string, unknown>;
  const parts = [
    table.maxCostUsd === undefined ? '' : budgetAmount('cost', table.maxCostUsd),
    table.maxTokens === undefined ? '' : budgetAmount('tokens', table.maxTokens),
    table.maxDurationMs === undefined ? '' : budgetAmount('duration', table.maxDurationMs),
  ];
  return parts.filter((part) => part !== '').join(', ');
}

/** The line for `event`; `model-text-streamed` has none (the turn's line carries the text, or it was streamed live). */
export function eventLine(event: RunEvent, options: EventLineOptions = {}): string | undefined {
  const p = event.payload;
  switch (event.type) {
    case RUN_EVENT.runCreated:
      return `● run ${event.runId} created (${String(p.workflow)})`;
    case RUN_EVENT.runStatusChanged:
      return `● run ${String(p.to)}${p.reason ? ` — ${String(p.reason)}` : ''}`;
    case RUN_EVENT.stageStarted:
      return `▶ ${event.stageId} (${String(p.kind)})`;
    case RUN_EVENT.stageFinished: {
      const took = `${typeof p.durationMs === 'number' ? ` in ${formatDuration(p.durationMs)}` : ''}${tokensNote(readTokenUsage(p.usage))}`;
      switch (p.status) {
        case 'succeeded':
          if (options.full && p.output !== null && p.output !== undefined && p.output !== '')
            return [`✓ ${event.stageId} succeeded${took} →`, ...outputLines(p.output, '    ', true)].join('\n');
          return `✓ ${event.stageId} succeeded${took}${p.output !== null && p.output !== '' ? ` → ${clip(p.output, 80)}` : ''}`;
        case 'abandoned':
        case 'interrupted':
          return `↺ ${event.stageId} ${String(p.status)}${p.error ? `: ${errorText(String(p.error), '    ')}` : ''}`;
        default:
          return `✗ ${event.stageId} ${String(p.status)}${took}${p.retrying ? ' (retrying)' : ''}${p.error ? `: ${errorText(String(p.error), '    ')}` : ''}`;
      }
    }
    case RUN_EVENT.questionAsked:
      return `? ${clip(p.prompt, 200)} [${String(p.kind)}${Array.isArray(p.options) ? `: ${p.options.join(' | ')}` : ''}] — answer with: weft answer ${event.runId} ${String(p.questionId)} <answer>`;
    case RUN_EVENT.questionAnswered:
      return `  answered ${String(p.questionId)}: ${clip(p.answer)}`;
    case RUN_EVENT.questionWithdrawn:
      return `  withdrawn ${String(p.questionId)}: ${p.reason === 'run-ended' ? 'the run ended' : `stage ${event.stageId} ended`} before an answer`;
    case RUN_EVENT.toolCallStarted:
      return `  ⚙ ${String(p.tool)} ${clip(p.arguments, 100)}`;
    case RUN_EVENT.toolCallFinished:
      return `  ${p.isError ? '✗' : '✓'} ${String(p.tool)}${typeof p.durationMs === 'number' ? ` (${formatDuration(p.durationMs)})` : ''}${p.isError && typeof p.text === 'string' && p.text.trim() !== '' ? `: ${clip(p.text, 160)}` : ''}`;
    case AGENT_EVENT.agentStarted:
      return `  ◆ ${String(p.provider)}:${String(p.model)} with ${Array.isArray(p.tools) ? p.tools.length : 0} tools (max ${String(p.maxTurns)} turns)`;
    case AGENT_EVENT.modelTurnFinished: {
      const calls = Array.isArray(p.toolCalls) ? p.toolCalls.length : 0;
      const callsNote = calls > 0 ? ` (${calls} tool call${calls === 1 ? '' : 's'})` : '';
      if (options.textShown) return calls > 0 ? `  ◆ turn ${String(p.turn)}${callsNote}` : undefined;
      const text = typeof p.text === 'string' && p.text.trim() !== '' ? ` ${clip(p.text, 200)}` : '';
      return `  ◆ turn ${String(p.turn)}:${text}${callsNote}`;
    }
    case AGENT_EVENT.modelRequestRetried:
      return retryLine('model request', p);
    case AGENT_EVENT.modelCallThrottled:
      return `  ⏳ ${String(p.model)} waited ${formatDuration(Number(p.waitedMs))} for [llm.limits."${String(p.pattern)}"] ${String(p.limit)}`;
    case SAMPLING_EVENT.retried:
      return retryLine(`model request for ${String(p.server)}'s sampling`, p);
    case AGENT_EVENT.messageDelivered:
      return `  ✉ delivered to the agent: ${clip(p.text, 200)}`;
    case ENGINE_EVENT.childRunCreated:
      return `  ↳ child run ${String(p.childId)} (${String(p.workflow)})`;
    case BUDGET_EVENT.warning:
      return `  ⚠ ${budgetName(p)}: ${budgetAmounts(p)} spent (${Math.round(Number(p.fraction) * 100)} %)`;
    case BUDGET_EVENT.exceeded:
      return `  ⚠ ${budgetName(p)} exceeded: ${budgetAmounts(p)}${p.action === 'fail' ? ' — the stage fails' : ' — the run waits for a raise or a cancel'}`;
    case BUDGET_EVENT.raised:
      return `  ${budgetName(p)} raised to ${budgetLimits(p.limits)}`;
    case ENGINE_EVENT.cancelRequested:
      return `  cancel requested${p.reason ? `: ${String(p.reason)}` : ''}`;
    case ENGINE_EVENT.interruptRequested:
      return '  interrupt requested';
    case ENGINE_EVENT.resumeRequested:
      return '  resume requested';
    case ENGINE_EVENT.messageSent:
      return `  message${event.stageId ? ` to ${event.stageId}` : ''}: ${clip(p.text, 200)}`;
    case RUN_EVENT.pairStarted:
      return `  ⇄ pair session ${String(p.sessionId)} started by ${String(p.by)} on ${String(p.stageId)}`;
    case RUN_EVENT.pairEnded:
      return `  ⇄ pair session ${String(p.sessionId)} ended${p.reason === PAIR_END_REASON.stageFinished ? ' (its stage finished)' : ''}`;
    case ENGINE_EVENT.checkpointCreated:
      return `  ⎇ checkpoint ${String(p.commit).slice(0, 12)}: ${String(p.filesChanged)} file${p.filesChanged === 1 ? '' : 's'} changed, +${String(p.linesAdded)} -${String(p.linesRemoved)}${p.pushed === true ? ' (pushed)' : ''}`;
    case ENGINE_EVENT.workspaceReset:
      return `  ⎇ workspace reset to ${String(p.commit).slice(0, 12)}: a lost runner's unrecorded checkpoint ${String(p.discarded).slice(0, 12)} is kept${p.keptRef ? ` in ${String(p.keptRef)}` : ''}`;
    case ENGINE_EVENT.runRewound:
      return `● run rewound to ${String(p.toStage)} (${String(p.commit).slice(0, 12)})${p.abandonedRef ? `; the abandoned tip ${String(p.abandonedCommit).slice(0, 12)} is kept in ${String(p.abandonedRef)}` : ''}`;
    case ENGINE_EVENT.runForked:
      return `● run forked from ${String(p.fromStage)} as run ${String(p.forkId)}`;
    case ENGINE_EVENT.runMerged:
      return `● run merged into ${String(p.into)} (${String(p.kind)}, ${String(p.commit).slice(0, 12)})`;
    case ENGINE_EVENT.sandboxViolation:
      return `  ⛔ ${event.stageId ?? 'run'}: ${String(p.message)}`;
    case RUN_EVENT.runArchived:
      return '● run archived';
    case RUN_EVENT.runUnarchived:
      return '● run unarchived';
    default:
      return undefined;
  }
}
