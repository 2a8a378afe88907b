// One run, live: its summary, the buttons that steer it, pending questions, the workflow
// graph coloured by stage state (drawn by the server), the stages with their output and
// transcript, the panels features add (run-panels.js), and the event feed. The event stream
// drives every refresh; parts are redrawn only where their data changed, so focus stays put.
import { api, errorText, followEvents } from './api.js';
import { badge, clip, duration, failedOptional, fill, h, notice, syncRows, when } from './dom.js';
import { createEventFeed, stageDetail } from './event-feed.js';
import { newRunForm } from './new-run-form.js';
import { questionForm } from './question-form.js';
import { actionBar, actionKey, messageBox } from './run-actions.js';
import { runPanels } from './run-panels.js';
import { costText, costTitle } from './spend.js';
import { workspacePanel } from './workspace-panel.js';

/** Events after which the summary, stages, questions and graph are read again. */
const CHANGES = new Set([
  'run-status-changed',
  'stage-started',
  'stage-finished',
  'question-asked',
  'question-answered',
  'question-withdrawn',
  'pair-started',
  'pair-ended',
  'run-archived',
  'run-unarchived',
]);

/** The graph's states, as the legend names them (the colours are the server's, see render-svg.ts). */
const GRAPH_STATES = ['pending', 'running', 'blocked', 'succeeded', 'failed', 'skipped'];

export async function renderRun(root, signal, runId) {
  const events = [];
  const feed = createEventFeed();
  const message = h('p', { role: 'alert', hidden: true });
  const head = h('div', { class: 'run-head' });
  const actions = h('div');
  const rerun = h('div', { class: 'rerun' });
  const editAgain = (run) => {
    fill(rerun, newRunForm(run));
    rerun.querySelector('summary')?.focus();
  };
  const messages = messageBox(
    () => current,
    () => refresh(),
    () => graph.querySelector('[data-kind="agent"]') !== null,
  );
  const panels = h('div', { class: 'run-panels' });
  const questions = h('div', { class: 'questions', 'aria-live': 'polite' });
  const graph = h('div', {
    class: 'graph',
    id: 'run-graph',
    onclick: (event) => selectNode(event.target.closest?.('[data-node]')?.dataset.node),
  });
  const stageRows = h('tbody');
  // Never redrawn: where focus goes when what held it (an answered question) is gone.
  const stagesHeading = h('h2', { tabindex: '-1' }, 'Stages');
  const detail = h('div');
  const files = workspacePanel(runId, () => refresh());
  const live = h('span', { class: 'live', id: 'events-live' }, 'connecting');
  let current;
  let chosenStage;
  let shownActions;

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
        rerun,
        messages.element,
        questions,
        h(
          'section',
          { class: 'card', 'aria-label': 'Stages' },
          stagesHeading,
          h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'stages' },
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  ['Stage', 'Status', 'Took', 'Output'].map((name) => h('th', { scope: 'col' }, name)),
                ),
              ),
              stageRows,
            ),
          ),
        ),
        detail,
        panels,
        files.element,
      ),
      h('section', { class: 'card run-graph', 'aria-label': 'Workflow graph' }, h('h2', {}, 'Graph'), graph, legend()),
    ),
    h('section', { class: 'card', 'aria-label': 'Events' }, h('h2', {}, 'Events ', live), feed.element),
  );

  // Set while the last summary or graph read failed (the store away): the next time the event
  // stream is live they are read again, since a run that does not change sends nothing to refresh them.
  let stale = false;
  const refresh = coalesced(async () => {
    const read = await Promise.all([loadSummary(), loadGraph()]);
    stale = read.includes(false);
  });

  /** Resolves to whether the read went through. */
  async function loadSummary() {
    try {
      const next = await api('GET', `/runs/${runId}`);
      if (signal.aborted) return;
      current = next;
      notice(message, '');
      renderSummary();
      return true;
    } catch (error) {
      if (!signal.aborted) notice(message, errorText(error));
      return false;
    }
  }

  /** The server draws the graph with the states (one renderer for CLI and page); its text is escaped there. Resolves to whether it was read. */
  async function loadGraph() {
    try {
      const svg = await api('GET', `/runs/${runId}/graph?format=svg`);
      if (signal.aborted) return;
      graph.innerHTML = svg;
      markBlocked();
      if (current) messages.update();
      return true;
    } catch (error) {
      if (!signal.aborted) fill(graph, h('p', { class: 'muted' }, `No graph: ${errorText(error)}`));
      return false;
    }
  }

  function renderSummary() {
    const { run, stages, pending_questions: pending, tokens, cost } = current;
    document.title = `${run.workflow} · ${run.status} · weft`;
    fill(
      head,
      h(
        'h1',
        {},
        run.workflow,
        ' ',
        badge(run.status, run.counts.failed_optional_stages),
        ' ',
        failedOptional(run.counts.failed_optional_stages),
        ' ',
        h('span', { class: 'mono muted run-id' }, run.id),
      ),
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
        meta('Cost', h('span', { title: costTitle(cost) }, costText(cost))),
        meta('Tool calls', run.counts.tool_calls),
      ),
    );
    // The buttons are rebuilt only when the set offered changes, so a focused one keeps its focus.
    const key = actionKey(current);
    if (key !== shownActions) {
      // A button pressed by keyboard that changed the run must not drop focus to the page's body.
      const pressed = actions.contains(document.activeElement) ? document.activeElement.dataset.action : undefined;
      fill(actions, actionBar(current, refresh, editAgain));
      if (pressed !== undefined)
        focusFirst(actions.querySelector(`[data-action="${pressed}"]`), actions.querySelector('button'), stagesHeading);
    }
    shownActions = key;
    messages.update();
    // A form stays while its question is pending, so what a person has typed or ticked survives updates.
    const shown = new Map([...questions.children].map((form) => [form.dataset.question, form]));
    const forms = pending.map((question) => shown.get(question.id) ?? questionForm(run.id, question, refresh));
    if (forms.length !== questions.children.length || forms.some((form, index) => questions.children[index] !== form)) {
      // Answering by keyboard removes the form in focus: focus goes on to the next question, else to the run's buttons.
      const answering = questions.contains(document.activeElement);
      fill(questions, forms);
      if (answering && !questions.contains(document.activeElement))
        focusFirst(questions.querySelector('button, input, textarea'), stagesHeading);
    }
    const waiting = new Set(pending.map((question) => question.stage_id));
    const selected = shownStage()?.stage_id;
    syncRows(
      stageRows,
      stages.map((stage) => ({ ...stage, waiting: waiting.has(stage.stage_id), selected: stage.stage_id === selected })),
      (stage) => stage.stage_id,
      stageRow,
    );
    markBlocked();
    renderDetail();
    renderPanels();
  }

  function renderPanels() {
    fill(
      panels,
      runPanels().map((panel) => {
        try {
          return panel.render(current, { events, signal });
        } catch (error) {
          return h('p', { class: 'error' }, `The ${panel.id} panel failed: ${errorText(error)}`);
        }
      }),
    );
  }

  /** A stage waiting for an answer is drawn as blocked, as the run is, not as running. */
  function markBlocked() {
    const waiting = new Set((current?.pending_questions ?? []).map((question) => question.stage_id.replace(/@\d+$/, '')));
    for (const node of graph.querySelectorAll('[data-node]')) {
      if (waiting.has(node.dataset.node) && node.dataset.state === 'running') node.dataset.state = 'blocked';
    }
  }

  function stageRow(stage) {
    const status = stage.waiting && stage.status === 'running' ? 'blocked' : stage.status;
    return h(
      'tr',
      { 'data-stage': stage.stage_id, 'aria-selected': String(stage.selected) },
      h(
        'td',
        { 'data-label': 'Stage' },
        h(
          'button',
          { type: 'button', class: 'link mono', onclick: () => ((chosenStage = stage.stage_id), renderSummary()) },
          stage.stage_id,
        ),
      ),
      h(
        'td',
        { 'data-label': 'Status' },
        badge(status),
        stage.exit_code === null || stage.exit_code === undefined
          ? null
          : h('span', { class: 'exit mono', title: 'Exit code' }, ` exit ${stage.exit_code}`),
      ),
      h(
        'td',
        { 'data-label': 'Took' },
        duration(stage.duration_ms),
        stage.cost ? h('span', { class: 'muted', title: costTitle(stage.cost) }, ` · ${costText(stage.cost)}`) : null,
      ),
      h('td', { 'data-label': 'Output' }, clip(stage.output_preview ?? stage.error ?? '', 60)),
    );
  }

  function shownStage() {
    const stages = current?.stages ?? [];
    return stages.find((stage) => stage.stage_id === chosenStage) ?? stages.at(-1);
  }

  function renderDetail() {
    const stage = shownStage();
    // Live output follows its tail unless the person scrolled up in it.
    const before = detail.querySelector('.live-output');
    const follow = before === null || before.scrollHeight - before.scrollTop - before.clientHeight < 24;
    fill(detail, stage ? stageDetail(stage, events) : null);
    const after = detail.querySelector('.live-output');
    if (after !== null) after.scrollTop = follow ? after.scrollHeight : before.scrollTop;
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
    onState: (state) => {
      live.textContent = state;
      if (state === 'live' && stale) void refresh();
    },
    onEvent: (event) => {
      events.push(event);
      feed.add(event);
      if (CHANGES.has(event.type)) void refresh();
      else if (event.stage_id !== undefined && event.stage_id === shownStage()?.stage_id) renderDetail();
    },
  });
}

/** Focuses the first of `candidates` that is on the page. */
function focusFirst(...candidates) {
  candidates.find((element) => element?.isConnected)?.focus();
}

function legend() {
  return h(
    'ul',
    { class: 'legend', 'aria-label': 'Graph legend' },
    GRAPH_STATES.map((state) => h('li', { 'data-state': state }, h('span', { class: 'swatch', 'aria-hidden': 'true' }), state)),
  );
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
