// The buttons that steer a run, offered by its status: start, approve/deny, cancel,
// interrupt, resume, retry, run again (same inputs, or edited first), archive; pairing with a running agent
// stage; and sending a message to a run that has an agent to read it.
import { api, errorText } from './api.js';
import { h, notice } from './dom.js';

const ACTIVE = new Set(['queued', 'starting', 'running', 'blocked', 'paused']);
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

/** Sends `body` to `POST /runs/<id>/<path>`; shows a failure in `message`, runs `changed` after a success. */
async function post(runId, path, body, message, changed) {
  notice(message, '');
  try {
    await api('POST', `/runs/${runId}/${path}`, body);
    changed();
    return true;
  } catch (error) {
    notice(message, errorText(error));
    return false;
  }
}

/** What decides the buttons offered: the bar is rebuilt only when this changes. */
export function actionKey(detail) {
  const { run, stages } = detail;
  return JSON.stringify([
    run.status,
    run.archived,
    run.pair_session?.session_id ?? null,
    stages.some((stage) => stage.status === 'running' && stage.kind === 'agent'),
  ]);
}

/** The buttons `detail` ({run, stages}) offers now; `changed` reloads the page's data, `edit` opens the run-again form. */
export function actionBar(detail, changed, edit) {
  const { run, stages } = detail;
  const message = h('p', { role: 'alert', hidden: true });
  const act = (label, path, body = {}, primary = false) =>
    h(
      'button',
      {
        type: 'button',
        class: primary ? 'primary' : '',
        'data-action': path === 'start' && run.status === 'paused' ? 'resume' : path,
        onclick: () => post(run.id, path, body, message, changed),
      },
      label,
    );
  const agentRunning = stages.some((stage) => stage.status === 'running' && stage.kind === 'agent');
  const session = run.pair_session;
  const buttons = [
    run.status === 'submitted' && act('Start', 'start', {}, true),
    run.status === 'paused' && act('Resume', 'start', {}, true),
    run.status === 'pending' && act('Approve', 'approve', {}, true),
    run.status === 'pending' && act('Deny', 'deny', { reason: 'denied in the dashboard' }),
    (run.status === 'running' || run.status === 'blocked') && act('Interrupt', 'interrupt'),
    agentRunning && !session && act('Pair', 'pair', { action: 'start' }),
    session && act('End pairing', 'pair', { action: 'end', session_id: session.session_id }),
    (ACTIVE.has(run.status) || run.status === 'pending' || run.status === 'submitted') &&
      act('Cancel', 'cancel', { reason: 'cancelled in the dashboard' }),
    (run.status === 'failed' || run.status === 'cancelled') && act('Retry', 'retry', {}, true),
    TERMINAL.has(run.status) && h('button', { type: 'button', 'data-action': 'rerun', onclick: () => runAgain(run, message) }, 'Run again'),
    TERMINAL.has(run.status) &&
      edit &&
      h('button', { type: 'button', 'data-action': 'rerun-edit', onclick: () => edit(run) }, 'Edit and run again'),
    TERMINAL.has(run.status) && act(run.archived ? 'Unarchive' : 'Archive', 'archive', { archived: !run.archived }),
  ];
  return h('div', { class: 'actions' }, h('div', { class: 'buttons', role: 'toolbar', 'aria-label': 'Run actions' }, buttons), message);
}

/** A new run of the same workflow with the same inputs, goal, labels and model, opened at once. */
async function runAgain(run, message) {
  notice(message, '');
  try {
    const body = {
      workflow: run.workflow_path,
      cwd: run.cwd,
      goal: run.goal,
      inputs: run.inputs,
      labels: run.labels,
      auto_approve: run.auto_approve,
      ...(run.model ? { model: run.model } : {}),
    };
    const { run: next } = await api('POST', '/runs', body);
    location.hash = `#/runs/${next.id}`;
  } catch (error) {
    notice(message, errorText(error));
  }
}

/**
 * The message box, made once per page so a half-typed message survives the page's updates;
 * `current()` gives the latest detail. To the paired stage while a pair session is open,
 * else to the run (its agents read it on their next turn). Shown only while the run has not
 * ended and `hasAgent()` (its workflow has an agent to read it) or a session is open.
 * `update()` follows the run.
 */
export function messageBox(current, changed, hasAgent) {
  const message = h('p', { role: 'alert', hidden: true });
  const text = h('input', { id: 'run-message', type: 'text', autocomplete: 'off' });
  const send = async (event) => {
    event.preventDefault();
    const value = text.value.trim();
    const { run } = current();
    if (!value) return;
    const session = run.pair_session;
    const [path, body] = session
      ? ['pair', { action: 'message', session_id: session.session_id, text: value }]
      : ['message', { text: value }];
    if (await post(run.id, path, body, message, changed)) text.value = '';
  };
  const form = h(
    'form',
    { class: 'message-form', onsubmit: send },
    h('label', { for: 'run-message', class: 'sr-only' }, 'Message'),
    text,
    h('button', { type: 'submit' }, 'Send'),
  );
  const element = h('div', { hidden: true }, form, message);
  const update = () => {
    const { run } = current();
    element.hidden = TERMINAL.has(run.status) || (!run.pair_session && !hasAgent());
    text.placeholder = run.pair_session
      ? `Message to ${run.pair_session.stage_id} (pairing)`
      : 'A message the agent reads on its next turn';
  };
  return { element, update };
}
