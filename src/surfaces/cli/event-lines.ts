/**
 * One readable line per run event, for `weft run` (following), `weft logs` and `weft
 * events` without `--json`. Events without a line of their own (internal bookkeeping)
 * return undefined.
 */
import { AGENT_EVENT, ENGINE_EVENT, RUN_EVENT, PAIR_END_REASON } from '../../runs/model/event-types.js';
import { formatDuration } from '../../core/duration.js';
import type { RunEvent } from '../../runs/model/run-event.js';
import { errorText, outputLines } from './stage-lines.js';

function clip(value: unknown, max = 120): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const line = (text ?? '').replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * `full` (`weft logs --full`) prints a stage's whole output, its lines kept; without it
 * the output is cut to one line. Failure messages are whole either way.
 */
export function eventLine(event: RunEvent, options: { full?: boolean } = {}): string | undefined {
  const p = event.payload;
  switch (event.type) {
    case RUN_EVENT.runCreated:
      return `● run ${event.runId} created (${String(p.workflow)})`;
    case RUN_EVENT.runStatusChanged:
      return `● run ${String(p.to)}${p.reason ? ` — ${String(p.reason)}` : ''}`;
    case RUN_EVENT.stageStarted:
      return `▶ ${event.stageId} (${String(p.kind)})`;
    case RUN_EVENT.stageFinished: {
      const took = typeof p.durationMs === 'number' ? ` in ${formatDuration(p.durationMs)}` : '';
      switch (p.status) {
        case 'succeeded':
          if (options.full && p.output !== null && p.output !== undefined && p.output !== '') return [`✓ ${event.stageId} succeeded${took} →`, ...outputLines(p.output, '    ', true)].join('\n');
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
    case RUN_EVENT.toolCallStarted:
      return `  ⚙ ${String(p.tool)} ${clip(p.arguments, 100)}`;
    case RUN_EVENT.toolCallFinished:
      return `  ${p.isError ? '✗' : '✓'} ${String(p.tool)}${typeof p.durationMs === 'number' ? ` (${formatDuration(p.durationMs)})` : ''}`;
    case AGENT_EVENT.agentStarted:
      return `  ◆ ${String(p.provider)}:${String(p.model)} with ${Array.isArray(p.tools) ? p.tools.length : 0} tools (max ${String(p.maxTurns)} turns)`;
    case AGENT_EVENT.modelTurnFinished: {
      const calls = Array.isArray(p.toolCalls) ? p.toolCalls.length : 0;
      const text = typeof p.text === 'string' && p.text.trim() !== '' ? ` ${clip(p.text, 200)}` : '';
      return `  ◆ turn ${String(p.turn)}:${text}${calls > 0 ? ` (${calls} tool call${calls === 1 ? '' : 's'})` : ''}`;
    }
    case AGENT_EVENT.messageDelivered:
      return `  ✉ delivered to the agent: ${clip(p.text, 200)}`;
    case ENGINE_EVENT.childRunCreated:
      return `  ↳ child run ${String(p.childId)} (${String(p.workflow)})`;
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
    case RUN_EVENT.runArchived:
      return '● run archived';
    case RUN_EVENT.runUnarchived:
      return '● run unarchived';
    default:
      return undefined;
  }
}
