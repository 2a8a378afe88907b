// The runs list: status filters, a search box, newest first with "more" pages, kept live by
// asking again every few seconds while the tab is visible; and a form to start a run.
import { api, errorText } from './api.js';
import { badge, clip, fill, h, notice, when } from './dom.js';

const STATUSES = ['running', 'blocked', 'pending', 'queued', 'paused', 'succeeded', 'failed', 'cancelled'];
const REFRESH_MS = 2000;
const PAGE_SIZE = 50;

export async function renderRuns(root, signal) {
  const filter = { statuses: new Set(), text: '' };
  let shown = PAGE_SIZE;
  const message = h('p', { role: 'alert', hidden: true });
  const rows = h('tbody');
  const more = h('button', { type: 'button', hidden: true, onclick: () => ((shown += PAGE_SIZE), void load()) }, 'Show more');
  const empty = h('p', { class: 'muted', hidden: true }, 'No runs match. Start one below or with ', h('code', {}, 'weft run <workflow.toml>'), '.');
  const search = h('input', { type: 'search', id: 'run-search', placeholder: 'Search id, workflow, goal, labels', 'aria-label': 'Search runs', oninput: debounce(() => ((filter.text = search.value.trim()), void load()), 250) });
  const chips = STATUSES.map((status) =>
    h('button', { type: 'button', class: 'chip', 'data-status': status, 'aria-pressed': 'false', onclick: (event) => toggle(event.currentTarget, status) }, status),
  );

  root.append(
    h('div', { class: 'page-head' }, h('h1', {}, 'Runs'), h('span', { class: 'live', id: 'runs-live' }, 'live')),
    h('div', { class: 'filters', role: 'group', 'aria-label': 'Filter by status' }, chips, search),
    message,
    h('div', { class: 'table-wrap' }, h('table', { class: 'runs' }, h('thead', {}, h('tr', {}, ['Run', 'Status', 'Stage', 'Goal', 'Created'].map((name) => h('th', { scope: 'col' }, name)))), rows)),
    empty,
    more,
    newRunForm(),
  );

  function toggle(chip, status) {
    if (filter.statuses.has(status)) filter.statuses.delete(status);
    else filter.statuses.add(status);
    chip.setAttribute('aria-pressed', String(filter.statuses.has(status)));
    shown = PAGE_SIZE;
    void load();
  }

  let loading = Promise.resolve();
  let lastDrawn = '';
  let first = true;
  function load() {
    loading = loading.then(async () => {
      const query = new URLSearchParams({ limit: String(shown) });
      if (filter.statuses.size > 0) query.set('status', [...filter.statuses].join(','));
      if (filter.text) query.set('text', filter.text);
      try {
        const page = await api('GET', `/runs?${query}`);
        if (signal.aborted) return;
        notice(message, '');
        // Redrawn only when something changed, so a focused link keeps its focus between refreshes.
        const drawn = JSON.stringify(page.runs);
        if (drawn !== lastDrawn) fill(rows, page.runs.map(runRow));
        lastDrawn = drawn;
        empty.hidden = page.runs.length > 0;
        more.hidden = page.next_cursor === null || page.next_cursor === undefined;
        if (first) performance.mark('weft:runs-first-page');
        first = false;
      } catch (error) {
        if (!signal.aborted) notice(message, errorText(error));
      }
    });
    return loading;
  }

  await load();
  const timer = setInterval(() => {
    if (document.visibilityState === 'visible') void load();
  }, REFRESH_MS);
  signal.addEventListener('abort', () => clearInterval(timer));
}

function runRow(run) {
  const link = h('a', { href: `#/runs/${run.id}` }, run.workflow);
  return h(
    'tr',
    { 'data-run': run.id },
    h('td', { 'data-label': 'Run' }, link, h('div', { class: 'muted mono' }, run.id)),
    h('td', { 'data-label': 'Status' }, badge(run.status), run.questions_pending > 0 ? h('span', { class: 'ask' }, ` ${run.questions_pending} question${run.questions_pending === 1 ? '' : 's'}`) : null),
    h('td', { 'data-label': 'Stage', class: 'mono' }, run.current_stage_id ?? '–'),
    h('td', { 'data-label': 'Goal' }, clip(run.goal_preview ?? '', 80)),
    h('td', { 'data-label': 'Created' }, when(run.created_at)),
  );
}

function newRunForm() {
  const message = h('p', { role: 'alert', hidden: true });
  const workflow = h('select', { id: 'new-workflow', name: 'workflow', required: true });
  const goal = h('input', { id: 'new-goal', name: 'goal', type: 'text' });
  const autoApprove = h('input', { id: 'new-auto-approve', type: 'checkbox' });
  const details = h(
    'details',
    { class: 'card new-run', ontoggle: () => details.open && void listWorkflows() },
    h('summary', {}, 'Start a run'),
    h(
      'form',
      { onsubmit: submit },
      h('label', { for: 'new-workflow' }, 'Workflow'),
      workflow,
      h('label', { for: 'new-goal' }, 'Goal (optional)'),
      goal,
      h('label', { class: 'inline' }, autoApprove, ' Approve at once (skip the pending step)'),
      message,
      h('button', { type: 'submit', class: 'primary' }, 'Start'),
    ),
  );
  return details;

  async function listWorkflows() {
    try {
      const { workflows } = await api('GET', '/workflows');
      fill(workflow, workflows.map((item) => h('option', { value: item.path, disabled: !item.valid }, `${item.path}${item.valid ? '' : ' (invalid)'}`)));
    } catch (error) {
      notice(message, errorText(error));
    }
  }

  async function submit(event) {
    event.preventDefault();
    try {
      const body = { workflow: workflow.value, auto_approve: autoApprove.checked };
      if (goal.value.trim()) body.goal = goal.value.trim();
      const { run } = await api('POST', '/runs', body);
      location.hash = `#/runs/${run.id}`;
    } catch (error) {
      notice(message, errorText(error));
    }
  }
}

function debounce(action, ms) {
  let timer;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(action, ms);
  };
}
