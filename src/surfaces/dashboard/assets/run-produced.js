// The run page's "What it produced" panel: the artifacts the run kept (full tool outputs,
// each to view in the browser or to download) and, for a run with a workspace, a link to
// its Files panel (the files its stages wrote). Read again when a new tool call kept one.
// A panel (run-panels.js).
import { api, errorText } from './api.js';
import { fill, h } from './dom.js';
import { addRunPanel } from './run-panels.js';

/** Per run page: the element kept across redraws, how many artifacts it was read for, and the list. */
const shown = new WeakMap();

function render(detail, { events, signal }) {
  const { run } = detail;
  const kept = events.filter((event) => event.type === 'tool-call-finished' && event.payload?.artifactPath).length;
  let state = shown.get(signal);
  if (state === undefined) {
    state = {
      element: h('section', { class: 'card produced', id: 'run-produced', 'aria-label': 'What it produced' }),
      read: -1,
      artifacts: [],
    };
    shown.set(signal, state);
  }
  if (state.read !== kept) {
    state.read = kept;
    void api('GET', `/runs/${encodeURIComponent(run.id)}/artifacts`).then(
      (answer) => {
        state.artifacts = answer.artifacts;
        draw(state, run);
      },
      (error) =>
        fill(
          state.element,
          h('h2', {}, 'What it produced'),
          h('p', { class: 'error' }, `Its artifacts could not be read: ${errorText(error)}`),
        ),
    );
  }
  draw(state, run);
  return state.artifacts.length > 0 || run.workspace ? state.element : null;
}

function draw(state, run) {
  const base = `/api/v1/runs/${encodeURIComponent(run.id)}/artifacts`;
  fill(
    state.element,
    h('h2', {}, 'What it produced'),
    state.artifacts.length > 0
      ? h(
          'ul',
          { class: 'artifacts' },
          state.artifacts.map((artifact) =>
            h(
              'li',
              { 'data-artifact': artifact.seq },
              h('a', { href: `${base}/${artifact.seq}`, target: '_blank', rel: 'noopener', class: 'mono' }, artifact.name),
              ' ',
              h(
                'span',
                { class: 'muted' },
                `${artifact.tool}${artifact.stage_id ? ` in ${artifact.stage_id}` : ''}${artifact.bytes === null ? '' : ` · ${size(artifact.bytes)}`}`,
              ),
              ' ',
              h('a', { href: `${base}/${artifact.seq}?download=true`, download: artifact.name, 'data-download': artifact.seq }, 'Download'),
            ),
          ),
        )
      : h('p', { class: 'muted' }, 'No artifacts: no tool output was cut short.'),
    run.workspace
      ? h(
          'p',
          {},
          'The files its stages wrote: ',
          h(
            'a',
            {
              href: '#run-files',
              'data-files-link': true,
              onclick: (event) => (event.preventDefault(), document.getElementById('run-files')?.scrollIntoView()),
            },
            'Files',
          ),
        )
      : null,
  );
}

function size(bytes) {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

addRunPanel({ id: 'produced', render });
