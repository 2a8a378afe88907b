// Schedules: each with its workflow, cron, next due time and policies; pause or resume one.
// The runs a schedule made are on the Runs page with the label weft.schedule=<name>.
// Refreshed every few seconds, as the next due time moves while workers tick.
import { api, errorText } from './api.js';
import { badge, fill, h, notice } from './dom.js';

const REFRESH_MS = 5000;

export async function renderSchedules(root, signal) {
  const message = h('p', { role: 'alert', hidden: true });
  const rows = h('tbody');
  const empty = h(
    'p',
    { class: 'muted', hidden: true },
    'No schedules. Add one with weft schedule add <name> <workflow> --cron "0 3 * * *".',
  );
  root.append(
    h('div', { class: 'page-head' }, h('h1', {}, 'Schedules')),
    h('p', { class: 'muted' }, 'Schedules fire only while a weft worker or weft serve with its worker runs.'),
    message,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'schedules' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Schedule', 'Cron', 'Next due', 'Policies', ''].map((name) => h('th', { scope: 'col' }, name)),
          ),
        ),
        rows,
      ),
    ),
    empty,
  );

  let lastDrawn = '';

  async function load() {
    try {
      const { schedules } = await api('GET', '/schedules');
      if (signal.aborted) return;
      const drawn = JSON.stringify(schedules);
      if (drawn !== lastDrawn)
        fill(
          rows,
          schedules.map((schedule) => scheduleRow(schedule, toggle)),
        );
      lastDrawn = drawn;
      empty.hidden = schedules.length > 0;
    } catch (error) {
      if (!signal.aborted) notice(message, errorText(error));
    }
  }

  async function toggle(schedule) {
    notice(message, '');
    const verb = schedule.paused ? 'resume' : 'pause';
    try {
      await api('POST', `/schedules/${encodeURIComponent(schedule.name)}/${verb}`);
      notice(message, `${schedule.paused ? 'Resumed' : 'Paused'} ${schedule.name}.`, 'ok');
      await load();
    } catch (error) {
      notice(message, errorText(error));
    }
  }

  await load();
  const timer = setInterval(() => document.visibilityState === 'visible' && void load(), REFRESH_MS);
  signal.addEventListener('abort', () => clearInterval(timer));
}

function scheduleRow(schedule, toggle) {
  const runs = `#/runs?label=${encodeURIComponent(`weft.schedule=${schedule.name}`)}`;
  return h(
    'tr',
    { 'data-schedule': schedule.name },
    h(
      'td',
      { 'data-label': 'Schedule' },
      h('strong', {}, schedule.name),
      h('div', { class: 'muted' }, schedule.workflow),
      h('a', { href: runs }, 'its runs'),
    ),
    h(
      'td',
      { 'data-label': 'Cron' },
      h('code', {}, schedule.cron),
      schedule.timezone ? h('div', { class: 'muted' }, schedule.timezone) : null,
    ),
    h('td', { 'data-label': 'Next due' }, schedule.paused ? badge('paused') : schedule.next_due ? dueTime(schedule.next_due) : '—'),
    h('td', { 'data-label': 'Policies' }, `catch up: ${schedule.catch_up}`, h('div', { class: 'muted' }, `overlap: ${schedule.overlap}`)),
    h('td', {}, h('button', { type: 'button', onclick: () => void toggle(schedule) }, schedule.paused ? 'Resume' : 'Pause')),
  );
}

/** A due time is ahead: shown as the local date and time, exact in the tooltip (ISO). */
function dueTime(iso) {
  const at = new Date(iso);
  return h('time', { datetime: iso, title: iso }, at.toLocaleString());
}
