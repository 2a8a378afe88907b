// The run page's family panel: a link to the run's parent and the runs it started (its
// children, each with its status), read again when a new child is created. A panel
// (run-panels.js).
import { api, errorText } from './api.js';
import { badge, fill, h } from './dom.js';
import { addRunPanel } from './run-panels.js';

/** Per run page: the element kept across redraws, and how many children it was read for. */
const shown = new WeakMap();

function render(detail, { events, signal }) {
  const { run } = detail;
  const created = events.filter((event) => event.type === 'child-run-created').length;
  let state = shown.get(signal);
  if (state === undefined) {
    state = { element: h('section', { class: 'card family', 'aria-label': 'Parent and children' }), read: -1, children: [] };
    shown.set(signal, state);
  }
  if (state.read !== created) {
    state.read = created;
    void api('GET', `/runs?parent_id=${encodeURIComponent(run.id)}&archived=any&limit=100`).then(
      (page) => {
        state.children = page.runs;
        draw(state, run);
      },
      (error) => fill(state.element, h('p', { class: 'error' }, `Its child runs could not be read: ${errorText(error)}`)),
    );
  }
  draw(state, run);
  return run.parent_id || state.children.length > 0 ? state.element : null;
}

function draw(state, run) {
  fill(
    state.element,
    h('h2', {}, 'Parent and children'),
    run.parent_id ? h('p', {}, 'Started by ', h('a', { href: `#/runs/${run.parent_id}`, class: 'mono', 'data-parent': run.parent_id }, run.parent_id)) : null,
    state.children.length > 0
      ? h('ul', { class: 'children' }, state.children.map((child) => h('li', { 'data-child': child.id }, h('a', { href: `#/runs/${child.id}` }, child.workflow), ' ', badge(child.status), ' ', h('span', { class: 'mono muted' }, child.id))))
      : null,
  );
}

addRunPanel({ id: 'family', render });
