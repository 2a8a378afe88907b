/**
 * One readable line per run event, for `weft run` (following), `weft logs` and `weft
 * events` without `--json`. Events without a line of their own (internal bookkeeping)
 * return undefined.
 */
import { formatDuration } from '../../core/duration.js';
import type { RunEvent } from '../../runs/model/run-event.js';

function clip(value: unknown, max = 120): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const line = (text ?? '').replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function eventLine(event: RunEvent): string | undefined {
  const p = event.payload;
  switch (event.type) {
    case 'run-created':
      return `● run ${event.runId} created (${String(p.workflow)})`;
    case 'run-status-changed':
      return `● run ${String(p.to)}${p.reason ? ` — ${String(p.reason)}` : ''}`;
    case 'stage-started':
      return `▶ ${event.stageId} (${String(p.kind)})`;
    case 'stage-finished': {
      const took = typeof p.durationMs === 'number' ? ` in ${formatDuration(p.durationMs)}` : '';
      switch (p.status) {
        case 'succeeded':
          return `✓ ${event.stageId} succeeded${took}${p.output !== null && p.output !== '' ? ` → ${clip(p.output, 80)}` : ''}`;
        case 'abandoned':
        case 'interrupted':
          return `↺ ${event.stageId} ${String(p.status)}${p.error ? `: ${clip(p.error)}` : ''}`;
        default:
          return `✗ ${event.stageId} ${String(p.status)}${took}${p.error ? `: ${clip(p.error)}` : ''}${p.retrying ? ' (retrying)' : ''}`;
      }
    }
    case 'question-asked':
      return `? ${clip(p.prompt, 200)} [${String(p.kind)}${Array.isArray(p.options) ? `: ${p.options.join(' | ')}` : ''}] — answer with: weft answer ${event.runId} ${String(p.questionId)} <answer>`;
    case 'question-answered':
      return `  answered ${String(p.questionId)}: ${clip(p.answer)}`;
    case 'tool-call-started':
      return `  ⚙ ${String(p.tool)} ${clip(p.arguments, 100)}`;
    case 'tool-call-finished':
      return `  ${p.isError ? '✗' : '✓'} ${String(p.tool)}${typeof p.durationMs === 'number' ? ` (${formatDuration(p.durationMs)})` : ''}`;
    case 'agent-started':
      return `  ◆ ${String(p.provider)}:${String(p.model)} with ${Array.isArray(p.tools) ? p.tools.length : 0} tools (max ${String(p.maxTurns)} turns)`;
    case 'model-turn-finished': {
      const calls = Array.isArray(p.toolCalls) ? p.toolCalls.length : 0;
      const text = typeof p.text === 'string' && p.text.trim() !== '' ? ` ${clip(p.text, 200)}` : '';
      return `  ◆ turn ${String(p.turn)}:${text}${calls > 0 ? ` (${calls} tool call${calls === 1 ? '' : 's'})` : ''}`;
    }
    case 'message-delivered':
      return `  ✉ delivered to the agent: ${clip(p.text, 200)}`;
    case 'child-run-created':
      return `  ↳ child run ${String(p.childId)} (${String(p.workflow)})`;
    case 'run-cancel-requested':
      return `  cancel requested${p.reason ? `: ${String(p.reason)}` : ''}`;
    case 'run-interrupt-requested':
      return '  interrupt requested';
    case 'run-resume-requested':
      return '  resume requested';
    case 'message-sent':
      return `  message${event.stageId ? ` to ${event.stageId}` : ''}: ${clip(p.text, 200)}`;
    case 'pair-started':
      return `  ⇄ pair session ${String(p.sessionId)} started by ${String(p.by)} on ${String(p.stageId)}`;
    case 'pair-ended':
      return `  ⇄ pair session ${String(p.sessionId)} ended${p.reason === 'stage-finished' ? ' (its stage finished)' : ''}`;
    case 'run-archived':
      return '● run archived';
    case 'run-unarchived':
      return '● run unarchived';
    default:
      return undefined;
  }
}
