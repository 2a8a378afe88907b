// The run page's timeline: how long the run waited before it started, then each stage as a
// bar on one time axis, so parallel branches sit side by side, retries show as their own
// rows (node@2) and a stage waiting for an answer shows as blocked. A panel (run-panels.js).
import { duration, h } from './dom.js';
import { addRunPanel } from './run-panels.js';

function render(detail) {
  const { run, stages, pending_questions: pending } = detail;
  if (stages.length === 0) return null;
  const created = Date.parse(run.created_at);
  const end = Math.max(
    ...stages.map((stage) => (stage.finished_at ? Date.parse(stage.finished_at) : Date.now())),
    run.finished_at ? Date.parse(run.finished_at) : 0,
  );
  const span = Math.max(1, end - created);
  const waiting = new Set(pending.map((question) => question.stage_id));
  const bar = (label, from, to, state, title) =>
    h(
      'li',
      { 'data-stage': label, 'data-state': state },
      h('span', { class: 'mono timeline-label' }, label),
      h(
        'span',
        { class: 'timeline-track' },
        h('span', {
          class: 'timeline-bar',
          title,
          style: `left:${((100 * (from - created)) / span).toFixed(2)}%;width:${Math.max(0.5, (100 * (to - from)) / span).toFixed(2)}%`,
        }),
      ),
      h('span', { class: 'muted timeline-took' }, duration(to - from)),
    );
  const started = run.started_at ? Date.parse(run.started_at) : Date.parse(stages[0].started_at);
  const rows = [bar('waiting', created, started, 'queued', `pending and queued for ${duration(started - created)}`)];
  for (const stage of stages) {
    const from = Date.parse(stage.started_at);
    const to = stage.finished_at ? Date.parse(stage.finished_at) : Date.now();
    const state = stage.status === 'running' && waiting.has(stage.stage_id) ? 'blocked' : stage.status;
    rows.push(bar(stage.stage_id, from, to, state, `${stage.stage_id} ${state} for ${duration(to - from)}`));
  }
  return h(
    'section',
    { class: 'card timeline', 'aria-label': 'Timeline' },
    h('h2', {}, 'Timeline ', h('span', { class: 'muted' }, duration(span))),
    h('ol', { class: 'timeline-rows' }, rows),
  );
}

addRunPanel({ id: 'timeline', render });
