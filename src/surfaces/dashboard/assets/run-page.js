// One run, live: its summary, the buttons that steer it, pending questions, the workflow
// graph coloured by stage state (drawn by the server), the stages with their output and
// transcript, and the event feed. The event stream drives every refresh.
import { api, errorText, followEvents } from './api.js';
import { badge, clip, duration, fill, h, notice, when } from './dom.js';
import { createEventFeed, stageDetail } from './event-feed.js';
import { questionForm } from './question-form.js';
import { actionBar, messageBox } from './run-actions.js';
import { workspacePanel } from './workspace-panel.js';

/** Events after which the summary, stages, questions and graph are read again. */
const CHANGES = new Set(['run-status-changed', 'stage-started', 'stage-finished', 'question-asked', 'question-answered', 'pair-started', 'pair-ended', 'run-archived', 'run-unarchived']);

export async function renderRun(root, signal, runId) {
  const events = [];
  const feed = createEventFeed();
  const message = h('p', { role: 'alert', hidden: true });
  const head = h('div', { class: 'run-head' });
  const actions = h('div');
  const messages = messageBox(() => current, () => refresh());
  const questions = h('div', { class: 'questions', 'aria-live': 'polite' });
  const graph = h('div', { class: 'graph', id: 'run-graph', onclick: (event) => selectNode(event.target.closest?.('[data-node]')?.dataset.node) });
  const stageRows = h('tbody');
  const detail = h('div');
  const files = workspacePanel(runId, () => refresh());
  const live = h('span', { class: 'live', id: 'events-live' }, 'connecting');
  let current;
  let chosenStage;

  root.append(
    h('p', { class: 'crumbs' }, h('a', { href: '#/runs' }, '← Runs')),
    message,
    head,
    h(
      'div',
      { class: 'run-grid' },
      h(
        'div',
        { class: 'run-side' },
        actions,
        messages.element,
        questions,
        h('section', { class: 'card', 'aria-label': 'Stages' }, h('h2', {}, 'Stages'), h('div', { class: 'table-wrap' }, h('table', { class: 'stages' }, h('thead', {}, h('tr', {}, ['Stage', 'Status', 'Took', 'Output'].map((name) => h('th', { scope: 'col' }, name)))), stageRows))),
        detail,
        files.element,
      ),
      h('section', { class: 'card run-graph', 'aria-label': 'Workflow graph' }, h('h2', {}, 'Graph'), graph),
    ),
    h('section', { class: 'card', 'aria-label': 'Events' }, h('h2', {}, 'Events ', live), feed.element),
  );

  const refresh = coalesced(() => Promise.all([loadSummary(), loadGraph()]));

  async function loadSummary() {
    try {
      const next = await api('GET', `/runs/${runId}`);
      if (signal.aborted) return;
      current = next;
      notice(message, '');
      renderSummary();
    } catch (error) {
      if (!signal.aborted) notice(message, errorText(error));
    }
  }

  /** The server draws the graph with the states (one renderer for CLI and page); its text is escaped there. */
  async function loadGraph() {
    try {
      const svg = await api('GET', `/runs/${runId}/graph?format=svg`);
      if (!signal.aborted) graph.innerHTML = svg;
    } catch (error) {
      if (!signal.aborted) fill(graph, h('p', { class: 'muted' }, `No graph: ${errorText(error)}`));
    }
  }

  function renderSummary() {
    const { run, stages, pending_questions: pending, tokens } = current;
    document.title = `${run.workflow} · ${run.status} · weft`;
    fill(
      head,
      h('h1', {}, run.workflow, ' ', badge(run.status), ' ', h('span', { class: 'mono muted run-id' }, run.id)),
      run.reason ? h('p', { class: 'reason' }, run.reason) : null,
      run.goal ? h('p', { class: 'goal' }, run.goal) : null,
      h(
        'dl',
        { class: 'meta' },
        meta('Created', when(run.created_at)),
        meta('Started', when(run.started_at)),
        meta('Finished', when(run.finished_at)),
        meta('Attempt', run.attempt),
        meta('Tokens', tokens ? tokens.total : '–'),
        meta('Tool calls', run.counts.tool_calls),
      ),
    );
    fill(actions, actionBar(current, refresh));
    messages.update();
    // A form stays while its question is pending, so what a person has typed or ticked survives updates.
    const shown = new Map([...questions.children].map((form) => [form.dataset.question, form]));
    fill(questions, pending.map((question) => shown.get(question.id) ?? questionForm(run.id, question, refresh)));
    fill(stageRows, stages.map(stageRow));
    renderDetail();
  }

  function stageRow(stage) {
    return h(
      'tr',
      { 'data-stage': stage.stage_id, 'aria-selected': String(stage.stage_id === shownStage()?.stage_id) },
      h('td', { 'data-label': 'Stage' }, h('button', { type: 'button', class: 'link mono', onclick: () => ((chosenStage = stage.stage_id), renderSummary()) }, stage.stage_id)),
      h('td', { 'data-label': 'Status' }, badge(stage.status)),
      h('td', { 'data-label': 'Took' }, duration(stage.duration_ms)),
      h('td', { 'data-label': 'Output' }, clip(stage.output_preview ?? stage.error ?? '', 60)),
    );
  }

  function shownStage() {
    const stages = current?.stages ?? [];
    return stages.find((stage) => stage.stage_id === chosenStage) ?? stages.at(-1);
  }

  function renderDetail() {
    const stage = shownStage();
    fill(detail, stage ? stageDetail(stage, events) : null);
    if (current) files.update(current, stage?.stage_id);
  }

  function selectNode(node) {
    const stage = (current?.stages ?? []).filter((candidate) => candidate.node === node).at(-1);
    if (stage === undefined) return;
    chosenStage = stage.stage_id;
    renderSummary();
  }

  await refresh();
  void followEvents(runId, {
    signal,
    onState: (state) => (live.textContent = state),
    onEvent: (event) => {
      events.push(event);
      feed.add(event);
      if (CHANGES.has(event.type)) void refresh();
      else if (event.stage_id !== undefined && event.stage_id === shownStage()?.stage_id) renderDetail();
    },
  });
}

function meta(name, value) {
  return h('div', {}, h('dt', {}, name), h('dd', {}, value));
}

/** `task` run at most once at a time; calls while it runs fold into one more run after it. */
function coalesced(task) {
  let running;
  let again = false;
  const start = () => {
    running = task().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        start();
      }
    });
    return running;
  };
  return () => {
    if (running) {
      again = true;
      return running;
    }
    return start();
  };
}
