// The run page's family panel: a link to the run's parent and the tree of runs it started
// (children, their children, … each with its status), read again when a new child is
// created or while a run in the tree has not ended. A panel (run-panels.js).
import { api, errorText } from './api.js';
import { badge, fill, h } from './dom.js';
import { addRunPanel } from './run-panels.js';

/** How deep the tree is read, and how many children per run: past these the tree says more exist. */
const MAX_DEPTH = 5;
const MAX_CHILDREN = 100;

/** Per run page: the element kept across redraws, what the tree was read for, and the tree. */
const shown = new WeakMap();

function render(detail, { events, signal }) {
  const { run } = detail;
  const created = events.filter((event) => event.type === 'child-run-created').length;
  let state = shown.get(signal);
  if (state === undefined) {
    state = {
      element: h('section', { class: 'card family', 'aria-label': 'Parent and children' }),
      read: -1,
      asked: 0,
      children: [],
      key: '',
    };
    shown.set(signal, state);
  }
  const key = `${created}/${run.status}/${run.updated_at}`;
  if (state.key !== key && (state.read !== created || !allEnded(state.children))) {
    state.read = created;
    state.key = key;
    // Reads may overlap; only the answer to the latest one is drawn.
    const asked = ++state.asked;
    void readTree(run.id, 1).then(
      (children) => {
        if (asked !== state.asked) return;
        state.children = children;
        draw(state, run);
      },
      (error) =>
        asked === state.asked && fill(state.element, h('p', { class: 'error' }, `Its child runs could not be read: ${errorText(error)}`)),
    );
  }
  draw(state, run);
  // Always in the page, hidden while it has nothing to show: a tree read after the last redraw
  // (a finished run is not redrawn again) must still appear when it lands.
  return state.element;
}

/** The runs `id` started, each with its own children, `depth` levels down at most. */
async function readTree(id, depth) {
  const page = await api('GET', `/runs?parent_id=${encodeURIComponent(id)}&archived=any&limit=${MAX_CHILDREN}`);
  const runs = [...page.runs].reverse();
  const children = await Promise.all(
    runs.map(async (run) => ({ run, children: depth < MAX_DEPTH ? await readTree(run.id, depth + 1) : [] })),
  );
  return page.next_cursor ? [...children, { more: true }] : children;
}

function allEnded(children) {
  return children.every((child) => child.run === undefined || (child.run.terminal && allEnded(child.children)));
}

function draw(state, run) {
  state.element.hidden = !run.parent_id && state.children.length === 0;
  fill(
    state.element,
    h('h2', {}, 'Parent and children'),
    run.parent_id
      ? h('p', {}, 'Started by ', h('a', { href: `#/runs/${run.parent_id}`, class: 'mono', 'data-parent': run.parent_id }, run.parent_id))
      : null,
    state.children.length > 0 ? tree(state.children, 1) : null,
  );
}

function tree(children, level) {
  return h(
    'ul',
    { class: 'children', 'aria-label': level === 1 ? 'Child runs' : undefined },
    children.map((child) =>
      child.run === undefined
        ? h('li', { class: 'muted' }, 'more runs not shown')
        : h(
            'li',
            { 'data-child': child.run.id, 'data-depth': level },
            h('a', { href: `#/runs/${child.run.id}` }, child.run.workflow),
            ' ',
            badge(child.run.status),
            ' ',
            h('span', { class: 'mono muted' }, child.run.id),
            child.children.length > 0 ? tree(child.children, level + 1) : null,
          ),
    ),
  );
}

addRunPanel({ id: 'family', render });
