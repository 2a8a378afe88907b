// The runs list: status filters, a search box, newest first with "more" pages, kept live by
// the list's change stream (rows change, appear and leave as runs do), or — only while that
// stream is down — by asking again every few seconds; and a form to start a run.
import { api, errorText, followRunList } from './api.js';
import { badge, clip, fill, h, notice, when } from './dom.js';

const STATUSES = ['running', 'blocked', 'pending', 'queued', 'paused', 'succeeded', 'failed', 'cancelled'];
const REFRESH_MS = 2000;
const PAGE_SIZE = 50;

export async function renderRuns(root, signal) {
  const filter = { statuses: new Set(), text: '' };
  let shown = PAGE_SIZE;
  const message = h('p', { role: 'alert', hidden: true });
  const liveState = h('span', { class: 'live', id: 'runs-live', 'data-state': 'connecting' }, 'connecting');
  const rows = h('tbody');
  const more = h('button', { type: 'button', hidden: true, onclick: () => ((shown += PAGE_SIZE), void load()) }, 'Show more');
  const empty = h('p', { class: 'muted', hidden: true }, 'No runs match. Start one below or with ', h('code', {}, 'weft run <workflow.toml>'), '.');
  const search = h('input', { type: 'search', id: 'run-search', placeholder: 'Search id, workflow, goal, labels', 'aria-label': 'Search runs', oninput: debounce(() => ((filter.text = search.value.trim()), refilter()), 250) });
  const chips = STATUSES.map((status) =>
    h('button', { type: 'button', class: 'chip', 'data-status': status, 'aria-pressed': 'false', onclick: (event) => toggle(event.currentTarget, status) }, status),
  );

  root.append(
    h('div', { class: 'page-head' }, h('h1', {}, 'Runs'), liveState),
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
    refilter();
  }

  // The rows shown, newest first, as the API lists them; `complete` when no page is left behind them.
  let shownRuns = [];
  let complete = true;
  let loading = Promise.resolve();
  let lastDrawn = '';
  let first = true;
  function query(withLimit) {
    const params = new URLSearchParams(withLimit ? { limit: String(shown) } : {});
    if (filter.statuses.size > 0) params.set('status', [...filter.statuses].join(','));
    if (filter.text) params.set('text', filter.text);
    return params;
  }
  // Changes that came while a page was being read: the page may predate them.
  let duringLoad;
  function load() {
    loading = loading.then(async () => {
      duringLoad = [];
      try {
        const page = await api('GET', `/runs?${query(true)}`);
        if (signal.aborted) return;
        notice(message, '');
        shownRuns = page.runs;
        complete = page.next_cursor === null || page.next_cursor === undefined;
        const during = duringLoad;
        duringLoad = undefined;
        for (const [kind, run] of during) apply(kind, run, false);
        draw();
        if (first) performance.mark('weft:runs-first-page');
        first = false;
      } catch (error) {
        if (!signal.aborted) notice(message, errorText(error));
      } finally {
        duringLoad = undefined;
      }
    });
    return loading;
  }
  function draw() {
    // Redrawn only when something changed, so a focused link keeps its focus between changes elsewhere.
    const drawn = JSON.stringify(shownRuns);
    if (drawn !== lastDrawn) fill(rows, shownRuns.map(runRow));
    lastDrawn = drawn;
    empty.hidden = shownRuns.length > 0;
    more.hidden = complete;
  }

  /** A change from the stream: newer than what the row shows, it replaces, adds or drops the row. */
  function apply(kind, run, redraw = true) {
    duringLoad?.push([kind, run]);
    const at = shownRuns.findIndex((each) => each.id === run.id);
    if (at >= 0 && Date.parse(shownRuns[at].updated_at) > Date.parse(run.updated_at)) return;
    const rest = at >= 0 ? shownRuns.filter((each) => each.id !== run.id) : shownRuns;
    if (kind !== 'run') shownRuns = rest;
    else {
      const newer = (each) => each.created_at > run.created_at || (each.created_at === run.created_at && each.id > run.id);
      const position = rest.filter(newer).length;
      // A run older than every row shown belongs to a page not loaded yet.
      shownRuns = position === rest.length && !complete ? rest : [...rest.slice(0, position), run, ...rest.slice(position)];
    }
    if (redraw) draw();
  }

  // The stream of the current filters; polling only while it is down.
  let following;
  let timer;
  function poll(on) {
    const mode = on ? 'polling' : 'live';
    if (liveState.dataset.state === mode) return;
    clearInterval(timer);
    timer = on ? setInterval(() => document.visibilityState === 'visible' && void load(), REFRESH_MS) : undefined;
    liveState.textContent = mode;
    liveState.dataset.state = mode;
  }
  function follow() {
    following?.abort();
    following = new AbortController();
    void followRunList(query(false), {
      signal: AbortSignal.any([signal, following.signal]),
      onChange: (kind, run) => apply(kind, run),
      // Whatever changed while the stream was down or opening, the list read now has it; live from then on.
      onOpen: () => void load().then(() => poll(false)),
      onDrop: () => poll(true),
    });
  }
  function refilter() {
    follow();
    void load();
  }

  await load();
  follow();
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
