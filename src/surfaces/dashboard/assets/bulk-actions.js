// Acting on several runs of the list at once: cancel, archive or delete the selected runs,
// one request each, with one line saying what was done and what was refused (and why).
import { api, errorText } from './api.js';
import { h, notice } from './dom.js';

const ACTIONS = [
  {
    name: 'cancel',
    label: 'Cancel',
    done: 'cancelled',
    call: (id) => api('POST', `/runs/${id}/cancel`, { reason: 'cancelled in the dashboard' }),
  },
  { name: 'archive', label: 'Archive', done: 'archived', call: (id) => api('POST', `/runs/${id}/archive`, { archived: true }) },
  { name: 'delete', label: 'Delete', done: 'deleted', confirm: true, call: (id) => api('DELETE', `/runs/${id}`) },
];

/** The bar above the list: `selected` holds run ids; `changed()` runs after a bulk action (it re-reads the list). */
export function bulkBar(selected, changed) {
  const count = h('span', { class: 'muted' });
  const message = h('p', { role: 'status', hidden: true });
  const buttons = ACTIONS.map((action) =>
    h('button', { type: 'button', 'data-bulk': action.name, onclick: () => run(action) }, `${action.label} selected`),
  );
  const clear = h('button', { type: 'button', class: 'link', onclick: () => (selected.clear(), update(), changed()) }, 'Clear selection');
  const bar = h('div', { class: 'bulk', role: 'toolbar', 'aria-label': 'Selected runs', hidden: true }, count, buttons, clear);
  const element = h('div', {}, bar, message);

  function update() {
    bar.hidden = selected.size === 0;
    count.textContent = `${selected.size} selected`;
  }

  async function run(action) {
    const ids = [...selected];
    if (action.confirm && !window.confirm(`${action.label} ${ids.length} run${ids.length === 1 ? '' : 's'}? This cannot be undone.`))
      return;
    for (const button of buttons) button.disabled = true;
    const refused = [];
    let done = 0;
    for (const id of ids) {
      try {
        await action.call(id);
        done += 1;
        selected.delete(id);
      } catch (error) {
        refused.push(`${id.slice(-8)}: ${errorText(error)}`);
      }
    }
    for (const button of buttons) button.disabled = false;
    notice(
      message,
      `${done} ${action.done}.${refused.length > 0 ? ` Not ${action.done}: ${refused.join(' ')}` : ''}`,
      refused.length > 0 ? 'error' : 'ok',
    );
    update();
    await changed();
  }

  return { element, update };
}
