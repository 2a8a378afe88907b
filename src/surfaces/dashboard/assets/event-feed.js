// A run's events as a readable feed, with each tool call folded into one line that opens to
// its arguments and result; and one stage's output and agent transcript.
import { clip, duration, h } from './dom.js';

function text(value) {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** One line for an event, or undefined for bookkeeping events the feed leaves out. */
function eventLine(event) {
  const p = event.payload ?? {};
  switch (event.type) {
    case 'run-created':
      return `● run created (${p.workflow})`;
    case 'run-status-changed':
      return `● run ${p.to}${p.reason ? ` — ${p.reason}` : ''}`;
    case 'stage-started':
      return `▶ ${event.stage_id} (${p.kind})`;
    case 'stage-finished': {
      const mark = p.status === 'succeeded' ? '✓' : p.status === 'abandoned' || p.status === 'interrupted' ? '↺' : '✗';
      const detail =
        p.status === 'succeeded'
          ? p.output !== null && p.output !== ''
            ? ` → ${clip(p.output, 80)}`
            : ''
          : p.error
            ? `: ${clip(p.error)}`
            : '';
      return `${mark} ${event.stage_id} ${p.status} in ${duration(p.durationMs)}${detail}${p.retrying ? ' (retrying)' : ''}`;
    }
    case 'question-asked':
      return `? ${clip(p.prompt, 200)} [${p.kind}${Array.isArray(p.options) ? `: ${p.options.join(' | ')}` : ''}]`;
    case 'question-answered':
      return `  answered: ${clip(p.answer)}`;
    case 'question-withdrawn':
      return `  question withdrawn: ${p.reason === 'run-ended' ? 'the run ended' : `${event.stage_id} ended`} before an answer`;
    case 'agent-started':
      return `◆ ${p.provider}:${p.model} with ${Array.isArray(p.tools) ? p.tools.length : 0} tools`;
    case 'model-turn-finished':
      return `◆ turn ${p.turn}: ${clip(p.text ?? '', 160)}`;
    case 'model-request-retried':
      return `↻ model request failed (${clip(p.error, 160)}); retry ${p.attempt} of ${p.maxRetries} in ${duration(p.delayMs)}`;
    case 'model-call-throttled':
      return `⏳ ${p.model} waited ${duration(p.waitedMs)} for [llm.limits."${p.pattern}"] ${p.limit}`;
    case 'message-sent':
      return `✉ message${event.stage_id ? ` to ${event.stage_id}` : ''}: ${clip(p.text, 200)}`;
    case 'message-delivered':
      return `✉ delivered to the agent: ${clip(p.text, 200)}`;
    case 'pair-started':
      return `⇄ pairing with ${p.stageId} (${p.by})`;
    case 'pair-ended':
      return '⇄ pairing ended';
    case 'child-run-created':
      return `↳ child run ${p.childId} (${p.workflow})`;
    case 'run-cancel-requested':
      return `cancel requested${p.reason ? `: ${p.reason}` : ''}`;
    case 'run-archived':
    case 'run-unarchived':
    case 'run-interrupt-requested':
    case 'run-resume-requested':
      return event.type.replace(/-/g, ' ');
    default:
      return event.type.startsWith('mcp-') ? `${event.type}: ${clip(p)}` : undefined;
  }
}

/** The feed: `add(event)` in seq order. */
export function createEventFeed() {
  const list = h('ol', { class: 'events', id: 'events' });
  const openCalls = new Map();
  const key = (event) => event.payload?.callId ?? `${event.stage_id}:${event.payload?.tool}`;

  /** Follows the tail, as a CI log does, unless the person scrolled up to read. */
  function add(event) {
    const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
    addLine(event);
    if (atEnd) list.scrollTop = list.scrollHeight;
  }

  function addLine(event) {
    if (event.type === 'tool-call-started') {
      const summary = h('summary', {}, `⚙ ${event.payload.tool} `, h('span', { class: 'muted' }, 'running…'));
      const details = h('details', {}, summary, h('pre', {}, text(event.payload.arguments)));
      const item = h('li', { class: 'event tool', 'data-seq': event.seq, 'data-type': 'tool-call', 'data-state': 'running' }, details);
      openCalls.set(key(event), { item, summary, details });
      list.append(item);
      return;
    }
    if (event.type === 'tool-call-finished') {
      const call = openCalls.get(key(event));
      openCalls.delete(key(event));
      const outcome = `${event.payload.isError ? '✗' : '✓'} ${event.payload.tool} (${duration(event.payload.durationMs)})`;
      if (call === undefined) return void list.append(h('li', { class: 'event tool', 'data-seq': event.seq }, outcome));
      call.item.dataset.state = event.payload.isError ? 'failed' : 'succeeded';
      call.summary.replaceChildren(outcome);
      call.details.append(
        h('pre', { class: event.payload.isError ? 'error' : '' }, text(event.payload.text ?? event.payload.structuredContent)),
      );
      return;
    }
    const line = eventLine(event);
    if (line === undefined) return;
    list.append(
      h(
        'li',
        { class: 'event', 'data-seq': event.seq, 'data-type': event.type },
        h('time', { datetime: event.at, class: 'muted' }, new Date(event.at).toLocaleTimeString()),
        ' ',
        line,
      ),
    );
  }
  return { element: list, add };
}

/**
 * What a running stage has written so far: a command's stdout and stderr (`stage-output`),
 * an agent's text of the turn under way (`model-text-streamed`) and its tool calls.
 */
function liveOutput(own) {
  const pieces = [];
  let turn;
  for (const event of own) {
    const p = event.payload ?? {};
    if (event.type === 'stage-output' && typeof p.text === 'string')
      pieces.push(p.stream === 'stderr' ? h('span', { class: 'stderr' }, p.text) : p.text);
    else if (event.type === 'stage-output' && typeof p.progress === 'string') pieces.push(`${p.progress}\n`);
    else if (event.type === 'model-text-streamed' && typeof p.text === 'string') {
      if (turn !== undefined && turn !== p.turn) pieces.push('\n');
      turn = p.turn;
      pieces.push(p.text);
    } else if (event.type === 'tool-call-started') pieces.push(h('span', { class: 'muted' }, `\n⚙ ${p.tool} ${clip(p.arguments, 120)}\n`));
  }
  return pieces;
}

/** What `stage` left: its output (or error) and, for agent stages, the transcript; while it runs, its live output. */
export function stageDetail(stage, events) {
  const own = events.filter((event) => event.stage_id === stage.stage_id);
  const finished = own.find((event) => event.type === 'stage-finished');
  const output = finished ? text(finished.payload.output) : '';
  const live = finished ? [] : liveOutput(own);
  const transcript = own.flatMap((event) => {
    const p = event.payload ?? {};
    if (event.type === 'model-turn-finished')
      return [
        h(
          'li',
          { class: 'turn' },
          h('strong', {}, `Turn ${p.turn}`),
          h('p', {}, p.text || '(no text)'),
          (p.toolCalls ?? []).map((call) => h('div', { class: 'mono muted' }, `⚙ ${call.tool} ${clip(call.arguments, 160)}`)),
        ),
      ];
    if (event.type === 'tool-call-finished')
      return [
        h(
          'li',
          { class: 'tool-result' },
          h('div', { class: 'mono' }, `${p.isError ? '✗' : '✓'} ${p.tool}`),
          h('pre', {}, clip(p.text ?? '', 2000)),
        ),
      ];
    if (event.type === 'message-delivered' || event.type === 'message-sent')
      return [h('li', { class: 'message' }, h('strong', {}, 'You: '), p.text)];
    return [];
  });
  return h(
    'section',
    { class: 'card stage-detail', 'aria-label': `Stage ${stage.stage_id}` },
    h('h2', {}, `${stage.stage_id} `, h('span', { class: 'muted' }, `(${stage.kind})`)),
    stage.error ? h('p', { class: 'error' }, stage.error) : null,
    h('h3', {}, 'Output'),
    output
      ? h('pre', { class: 'output' }, output)
      : live.length > 0
        ? h('pre', { class: 'output live-output', 'aria-live': 'off' }, live)
        : h('p', { class: 'muted' }, stage.status === 'running' ? 'Still running…' : 'No output.'),
    transcript.length > 0 ? [h('h3', {}, 'Transcript'), h('ol', { class: 'transcript' }, transcript)] : null,
  );
}
