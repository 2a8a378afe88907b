// The runs list: status chips, search, workflow, label, date and archived filters kept in
// the URL (`#/runs?status=failed&workflow=ci`, so a view can be shared), newest first with
// "more" pages read by cursor, rows updated in place by the list's change stream (or — only
// while that stream is down — by asking again every few seconds); and a form to start a run.
import { api, errorText, followRunList } from './api.js';
import { badge, clip, duration, failedOptional, fill, h, notice, syncRows, when } from './dom.js';
import { bulkBar } from './bulk-actions.js';
import { newRunForm } from './new-run-form.js';

const STATUSES = ['submitted', 'pending', 'queued', 'running', 'blocked', 'paused', 'succeeded', 'failed', 'cancelled'];
const REFRESH_MS = 2000;
const PAGE_SIZE = 50;

/** The filters the URL's query holds. */
function readFilter() {
  const params = new URLSearchParams(location.hash.split('?')[1] ?? '');
  return {
    statuses: new Set((params.get('status') ?? '').split(',').filter((status) => STATUSES.includes(status))),
    text: params.get('text') ?? '',
    workflow: params.get('workflow') ?? '',
    label: params.get('label') ?? '',
    after: params.get('after') ?? '',
    archived: params.get('archived') === 'any' ? 'any' : 'false',
  };
}

export async function renderRuns(root, signal) {
  const filter = readFilter();
  let pages = 1;
  const message = h('p', { role: 'alert', hidden: true });
  const liveState = h('span', { class: 'live', id: 'runs-live', 'data-state': 'connecting' }, 'connecting');
  const rows = h('tbody');
  const more = h('button', { type: 'button', hidden: true, onclick: () => void loadMore() }, 'Show more');
  const empty = h('p', { class: 'muted', hidden: true }, 'No runs match. Start one below, or change the filters.');
  const input = (id, label, value, attributes = {}) =>
    h('input', { id, value, 'aria-label': label, autocomplete: 'off', oninput: debounce(refilter, 250), ...attributes });
  const search = input('run-search', 'Search runs', filter.text, { type: 'search', placeholder: 'Search id, workflow, goal, labels' });
  const workflow = input('run-workflow', 'Workflow name', filter.workflow, { placeholder: 'Workflow' });
  const label = input('run-label', 'Label (key=value)', filter.label, { placeholder: 'label key=value' });
  const after = input('run-after', 'Created after', filter.after, { type: 'date', onchange: refilter });
  const archived = h('input', { id: 'run-archived', type: 'checkbox', checked: filter.archived === 'any', onchange: refilter });
  const selected = new Set();
  const bulk = bulkBar(selected, () => {
    for (const box of rows.querySelectorAll('input[data-select]')) box.checked = selected.has(box.dataset.select);
    return load();
  });
  const chips = STATUSES.map((status) =>
    h(
      'button',
      {
        type: 'button',
        class: 'chip',
        'data-status': status,
        'aria-pressed': String(filter.statuses.has(status)),
        onclick: (event) => toggle(event.currentTarget, status),
      },
      status,
    ),
  );

  root.append(
    h('div', { class: 'page-head' }, h('h1', {}, 'Runs'), liveState),
    h('div', { class: 'filters', role: 'group', 'aria-label': 'Filter by status' }, chips),
    h(
      'div',
      { class: 'filters', role: 'group', 'aria-label': 'Filter runs' },
      search,
      workflow,
      label,
      after,
      h('label', { class: 'inline' }, archived, ' Show archived'),
    ),
    message,
    bulk.element,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'runs' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Select')),
            ['Run', 'Status', 'Stage', 'Goal', 'Took', 'Created'].map((name) => h('th', { scope: 'col' }, name)),
          ),
        ),
        rows,
      ),
    ),
    empty,
    more,
    newRunForm(),
  );

  function toggle(chip, status) {
    if (filter.statuses.has(status)) filter.statuses.delete(status);
    else filter.statuses.add(status);
    chip.setAttribute('aria-pressed', String(filter.statuses.has(status)));
    refilter();
  }

  // The rows shown, newest first, as the API lists them; `cursor` reads the page after them (none: no page is left).
  let shownRuns = [];
  let cursor = null;
  let loading = Promise.resolve();
  let first = true;
  function query() {
    const params = new URLSearchParams();
    if (filter.statuses.size > 0) params.set('status', [...filter.statuses].join(','));
    if (filter.text) params.set('text', filter.text);
    if (filter.workflow) params.set('workflow', filter.workflow);
    if (filter.label) params.set('label', filter.label);
    if (filter.after) params.set('created_after', new Date(filter.after).toISOString());
    if (filter.archived === 'any') params.set('archived', 'any');
    return params;
  }
  /** The filters into the URL, without a new history entry or a page change. */
  function keepInUrl() {
    const params = query();
    params.delete('created_after');
    if (filter.after) params.set('after', filter.after);
    const text = params.toString();
    history.replaceState(null, '', `#/runs${text ? `?${text}` : ''}`);
  }
  // Changes that came while pages were being read: the pages may predate them.
  let duringLoad;
  /**
   * Reads the first `pages` pages again (after a filter change or a reconnect), one cursor step
   * at a time; resolves to whether the read went through.
   */
  function load() {
    loading = loading.then(async () => {
      duringLoad = [];
      try {
        let runs = [];
        let next = null;
        for (let page = 0; page < pages; page += 1) {
          const params = query();
          params.set('limit', String(PAGE_SIZE));
          if (next) params.set('cursor', next);
          const answer = await api('GET', `/runs?${params}`);
          runs = runs.concat(answer.runs);
          next = answer.next_cursor ?? null;
          if (!next) break;
        }
        if (signal.aborted) return false;
        notice(message, '');
        shownRuns = runs;
        cursor = next;
        const during = duringLoad;
        duringLoad = undefined;
        for (const [kind, run] of during) apply(kind, run, false);
        drawNow();
        if (first) performance.mark('weft:runs-first-page');
        first = false;
        return true;
      } catch (error) {
        if (!signal.aborted) notice(message, `The runs could not be read: ${errorText(error)}`);
        return false;
      } finally {
        duringLoad = undefined;
      }
    });
    return loading;
  }
  /** Reads the page after the rows shown and adds it below them. */
  function loadMore() {
    loading = loading.then(async () => {
      if (!cursor) return;
      more.disabled = true;
      try {
        const params = query();
        params.set('limit', String(PAGE_SIZE));
        params.set('cursor', cursor);
        const answer = await api('GET', `/runs?${params}`);
        if (signal.aborted) return;
        const known = new Set(shownRuns.map((run) => run.id));
        shownRuns = shownRuns.concat(answer.runs.filter((run) => !known.has(run.id)));
        cursor = answer.next_cursor ?? null;
        pages += 1;
        notice(message, '');
        draw();
      } catch (error) {
        if (!signal.aborted) notice(message, `More runs could not be read: ${errorText(error)}`);
      } finally {
        more.disabled = false;
      }
    });
    return loading;
  }
  // Changes that come within one frame are drawn together, once.
  let frame;
  function draw() {
    frame ??= requestAnimationFrame(drawNow);
  }
  function drawNow() {
    cancelAnimationFrame(frame);
    frame = undefined;
    // Only rows whose run changed are rebuilt, so focus stays and 200 rows cost no more than the change.
    syncRows(
      rows,
      shownRuns,
      (run) => run.id,
      (run) => runRow(run, selected, bulk.update),
      updateRow,
    );
    empty.hidden = shownRuns.length > 0;
    more.hidden = !cursor;
  }

  /** A change from the stream: newer than what the row shows, it replaces, adds or drops the row. */
  function apply(kind, run, redraw = true) {
    duringLoad?.push([kind, run]);
    const at = shownRuns.findIndex((each) => each.id === run.id);
    if (at >= 0 && Date.parse(shownRuns[at].updated_at) > Date.parse(run.updated_at)) return;
    const rest = at >= 0 ? shownRuns.filter((each) => each.id !== run.id) : shownRuns;
    if (kind !== 'run') shownRuns = rest;
    else if (at >= 0) shownRuns = [...rest.slice(0, at), run, ...rest.slice(at)];
    else {
      const newer = (each) => each.created_at > run.created_at || (each.created_at === run.created_at && each.id > run.id);
      const position = rest.filter(newer).length;
      // A run older than every row shown belongs to a page not loaded yet.
      shownRuns = position === rest.length && cursor ? rest : [...rest.slice(0, position), run, ...rest.slice(position)];
    }
    if (redraw) draw();
  }

  // The stream of the current filters; polling only while it is down, or open but not yet
  // joined by a list read that went through (the store was away when it opened: the stream
  // brings only what changes from then on, so the runs that did not change would be missing).
  let following;
  let timer;
  let streamOpen = false;
  function poll(on) {
    const mode = on ? 'polling' : 'live';
    if (liveState.dataset.state === mode) return;
    clearInterval(timer);
    timer = on ? setInterval(() => document.visibilityState === 'visible' && void load().then(joined), REFRESH_MS) : undefined;
    liveState.textContent = mode;
    liveState.dataset.state = mode;
  }
  /** After a list read: live once one went through with the stream open. */
  function joined(read) {
    if (read && streamOpen) poll(false);
  }
  function follow() {
    following?.abort();
    following = new AbortController();
    streamOpen = false;
    void followRunList(query(), {
      signal: AbortSignal.any([signal, following.signal]),
      onChange: (kind, run) => apply(kind, run),
      // Whatever changed while the stream was down or opening, the list read now has it; live from then on.
      onOpen: () => {
        streamOpen = true;
        void load().then((read) => (read ? poll(false) : poll(true)));
      },
      onDrop: () => {
        streamOpen = false;
        poll(true);
      },
    });
  }
  function refilter() {
    filter.text = search.value.trim();
    filter.workflow = workflow.value.trim();
    filter.label = label.value.trim();
    filter.after = after.value;
    filter.archived = archived.checked ? 'any' : 'false';
    pages = 1;
    keepInUrl();
    follow();
    void load();
  }

  await load();
  follow();
  signal.addEventListener('abort', () => (clearInterval(timer), cancelAnimationFrame(frame)));
}

/**
 * The row's cells, each with what it shows (`key`): a change of a run redraws only the cells
 * whose key changed (status, stage, duration as it runs), never the whole row.
 */
const CELLS = [
  { label: null, key: () => '', draw: (run, selected, changed) => selectBox(run, selected, changed) },
  {
    label: 'Run',
    key: (run) => `${run.workflow}|${run.parent_id}`,
    draw: (run) => [
      h('a', { href: `#/runs/${run.id}` }, run.workflow),
      h('div', { class: 'muted mono' }, run.id),
      run.parent_id
        ? h('div', { class: 'muted' }, 'child of ', h('a', { href: `#/runs/${run.parent_id}`, class: 'mono' }, run.parent_id.slice(-8)))
        : null,
    ],
  },
  {
    label: 'Status',
    key: (run) => `${run.status}|${run.archived}|${run.questions_pending}|${run.failed_optional_stages}`,
    draw: (run) => [
      badge(run.status, run.failed_optional_stages),
      ' ',
      failedOptional(run.failed_optional_stages),
      run.archived ? h('span', { class: 'muted' }, ' archived') : null,
      run.questions_pending > 0
        ? h('span', { class: 'ask' }, ` ${run.questions_pending} question${run.questions_pending === 1 ? '' : 's'}`)
        : null,
    ],
  },
  { label: 'Stage', className: 'mono', key: (run) => run.current_stage_id ?? '', draw: (run) => run.current_stage_id ?? '–' },
  {
    label: 'Goal',
    key: (run) => `${run.goal_preview}|${JSON.stringify(run.labels)}`,
    draw: (run) => {
      const labels = Object.entries(run.labels ?? {});
      return [
        clip(run.goal_preview ?? '', 80),
        labels.length > 0
          ? h(
              'div',
              { class: 'labels' },
              labels.map(([key, value]) => h('span', { class: 'label mono' }, `${key}=${value}`)),
            )
          : null,
      ];
    },
  },
  { label: 'Took', key: (run) => `${run.started_at}|${run.finished_at}|${run.terminal}`, draw: (run) => took(run) },
  { label: 'Created', key: (run) => run.created_at, draw: (run) => when(run.created_at) },
];

/** What each row's cells show now: row → their keys. */
const cellKeys = new WeakMap();

function runRow(run, selected, changed) {
  const row = h(
    'tr',
    { 'data-run': run.id },
    CELLS.map((cell) =>
      h('td', { 'data-label': cell.label, class: cell.label === null ? 'select' : cell.className }, cell.draw(run, selected, changed)),
    ),
  );
  cellKeys.set(
    row,
    CELLS.map((cell) => cell.key(run)),
  );
  return row;
}

/** Brings `row` up to `run`, redrawing only the cells whose content changed. */
function updateRow(row, run) {
  const keys = cellKeys.get(row);
  CELLS.forEach((cell, index) => {
    const key = cell.key(run);
    if (key === keys[index]) return;
    keys[index] = key;
    fill(row.cells[index], cell.draw(run));
  });
}

function selectBox(run, selected, changed) {
  const toggle = (event) => {
    if (event.currentTarget.checked) selected.add(run.id);
    else selected.delete(run.id);
    changed();
  };
  return h('input', {
    type: 'checkbox',
    'data-select': run.id,
    'aria-label': `Select ${run.workflow} ${run.id}`,
    checked: selected.has(run.id),
    onchange: toggle,
  });
}

/** How long it ran (and, while it waits to start, that it waits). */
function took(run) {
  if (!run.started_at) return h('span', { class: 'muted' }, run.terminal ? '–' : 'waiting');
  const end = run.finished_at ? Date.parse(run.finished_at) : undefined;
  if (end === undefined)
    return h('span', { class: 'muted', title: `queued ${duration(Date.parse(run.started_at) - Date.parse(run.created_at))}` }, 'running');
  return h(
    'span',
    { title: `queued ${duration(Date.parse(run.started_at) - Date.parse(run.created_at))}` },
    duration(end - Date.parse(run.started_at)),
  );
}

function debounce(action, ms) {
  let timer;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(action, ms);
  };
}
