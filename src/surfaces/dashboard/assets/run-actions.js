// The buttons that steer a run, offered by its status: start, approve/deny, cancel,
// interrupt, retry, archive; pairing with a running agent stage; and sending a message.
import { api, errorText } from './api.js';
import { h, notice } from './dom.js';

const ACTIVE = new Set(['queued', 'starting', 'running', 'blocked', 'paused']);
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

/** The action bar and message box for `detail` ({run, stages}); `changed` reloads the page's data. */
export function runActions(detail, changed) {
  const { run, stages } = detail;
  const message = h('p', { role: 'alert', hidden: true });
  const act = (label, path, body = {}, primary = false) =>
    h('button', { type: 'button', class: primary ? 'primary' : '', 'data-action': path, onclick: () => call(path, body) }, label);

  async function call(path, body) {
    notice(message, '');
    try {
      await api('POST', `/runs/${run.id}/${path}`, body);
      changed();
    } catch (error) {
      notice(message, errorText(error));
    }
  }

  const agentRunning = stages.some((stage) => stage.status === 'running' && stage.kind === 'agent');
  const session = run.pair_session;
  const buttons = [
    run.status === 'submitted' && act('Start', 'start', {}, true),
    run.status === 'pending' && act('Approve', 'approve', {}, true),
    run.status === 'pending' && act('Deny', 'deny', { reason: 'denied in the dashboard' }),
    (run.status === 'running' || run.status === 'blocked') && act('Interrupt', 'interrupt'),
    agentRunning && !session && act('Pair', 'pair', { action: 'start' }),
    session && act('End pairing', 'pair', { action: 'end', session_id: session.session_id }),
    (ACTIVE.has(run.status) || run.status === 'pending' || run.status === 'submitted') && act('Cancel', 'cancel', { reason: 'cancelled in the dashboard' }),
    (run.status === 'failed' || run.status === 'cancelled') && act('Retry', 'retry', {}, true),
    TERMINAL.has(run.status) && act(run.archived ? 'Unarchive' : 'Archive', 'archive', { archived: !run.archived }),
  ];

  const text = h('input', { id: 'run-message', type: 'text', autocomplete: 'off', placeholder: session ? `Message to ${session.stage_id} (pairing)` : 'A message the agent reads on its next turn' });
  const send = (event) => {
    event.preventDefault();
    const value = text.value.trim();
    if (!value) return;
    const [path, body] = session ? ['pair', { action: 'message', session_id: session.session_id, text: value }] : ['message', { text: value }];
    void call(path, body).then(() => {
      if (message.hidden) text.value = '';
    });
  };
  const messageForm = TERMINAL.has(run.status)
    ? null
    : h('form', { class: 'message-form', onsubmit: send }, h('label', { for: 'run-message', class: 'sr-only' }, 'Message'), text, h('button', { type: 'submit' }, 'Send'));
  return h('div', { class: 'actions' }, h('div', { class: 'buttons', role: 'toolbar', 'aria-label': 'Run actions' }, buttons), messageForm, message);
}
