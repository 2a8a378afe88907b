// The run's files on its run page: the files a stage (or the whole run) changed with lines
// added and removed, the diff text, and Rewind / Fork buttons for that stage. Hidden for a
// run that works in place. Reads GET /runs/<id>/diff; rewinds and forks through the API.
import { api, errorText } from './api.js';
import { fill, h, notice } from './dom.js';

/** `{ element, update(detail, stageId) }`: call `update` with the page's data and the stage shown. */
export function workspacePanel(runId, changed) {
  const message = h('p', { role: 'alert', hidden: true });
  const body = h('div');
  const element = h(
    'section',
    { class: 'card', id: 'run-files', 'aria-label': 'Files', hidden: true },
    h('h2', {}, 'Files'),
    message,
    body,
  );
  let shownKey;
  let latestRequest = 0;

  async function show(run, stage) {
    const key = `${stage?.stage_id ?? ''}|${run.status}|${stage?.status ?? ''}`;
    if (key === shownKey) return;
    shownKey = key;
    // Only the newest request may draw: an earlier one answering late (the latest stage, loaded
    // as the page opened) must not replace the stage picked since.
    const request = (latestRequest += 1);
    const finished = stage !== undefined && stage.status !== 'running';
    try {
      const diff = await api('GET', `/runs/${runId}/diff${finished ? `?stage=${encodeURIComponent(stage.stage_id)}` : ''}`);
      if (request !== latestRequest) return;
      notice(message, '');
      fill(body, ...render(run, diff, finished ? stage : undefined));
    } catch (error) {
      if (request === latestRequest) notice(message, errorText(error));
    }
  }

  function render(run, diff, stage) {
    const title = stage ? `${stage.stage_id}: ` : `The whole run on ${diff.branch}: `;
    const summary = diff.unchanged
      ? `${title}no file changed`
      : `${title}${diff.files_changed} file${diff.files_changed === 1 ? '' : 's'} changed, +${diff.lines_added} −${diff.lines_removed}`;
    const files = h(
      'ul',
      { class: 'files mono' },
      diff.files.map((file) =>
        h(
          'li',
          {},
          `${file.status} ${file.path} `,
          h('span', { class: 'muted' }, file.binary ? 'binary' : `+${file.added} −${file.removed}`),
        ),
      ),
    );
    const text = diff.text ? h('pre', { class: 'diff mono' }, diff.text) : null;
    const buttons = stage
      ? [
          (run.status === 'failed' || run.status === 'cancelled') &&
            h(
              'button',
              { type: 'button', 'data-action': 'rewind', onclick: () => act('rewind', { to: stage.stage_id }) },
              `Rewind to ${stage.stage_id}`,
            ),
          h(
            'button',
            { type: 'button', 'data-action': 'fork', onclick: () => act('fork', { from: stage.stage_id }) },
            `Fork from ${stage.stage_id}`,
          ),
        ].filter(Boolean)
      : [];
    return [h('p', { class: 'files-summary' }, summary), files, text, buttons.length > 0 ? h('div', { class: 'actions' }, buttons) : null];
  }

  async function act(action, payload) {
    notice(message, '');
    try {
      const answer = await api('POST', `/runs/${runId}/${action}`, payload);
      shownKey = undefined;
      if (action === 'fork') location.hash = `#/runs/${answer.run.id}`;
      else changed();
    } catch (error) {
      notice(message, errorText(error));
    }
  }

  return {
    element,
    update(detail, stageId) {
      const run = detail.run;
      element.hidden = run.workspace === null || run.workspace === undefined;
      if (element.hidden) return;
      void show(
        run,
        detail.stages.find((stage) => stage.stage_id === stageId),
      );
    },
  };
}
