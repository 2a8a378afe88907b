// DOM helpers for the dashboard: elements built from data with text nodes only (never HTML
// strings), so nothing a run writes can become markup.

/**
 * An element with attributes, properties (`on*` handlers, `value`, `checked`) and children.
 * @example h('a', { href: '#/runs' }, 'Runs')
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (name === 'value' || name === 'checked') element[name] = value;
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `element`. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** The first line of `value` (text or JSON), at most `max` characters. */
export function clip(value, max = 120) {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The exact time in the reader's locale; one formatter, as `toLocaleString` makes one per call. */
const EXACT = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'medium' });
const DAY = new Intl.DateTimeFormat(undefined, { dateStyle: 'short' });

/** `3 min ago` for an ISO time or epoch ms; the exact time is the element's tooltip. `tickTimes` keeps it current. */
export function when(time) {
  if (time === null || time === undefined) return h('span', {}, '–');
  const at = new Date(time);
  return h('time', { datetime: at.toISOString(), title: EXACT.format(at), 'data-relative': true }, relative(at));
}

function relative(at) {
  const seconds = Math.round((Date.now() - at.getTime()) / 1000);
  return seconds < 45
    ? 'just now'
    : seconds < 3600
      ? `${Math.round(seconds / 60)} min ago`
      : seconds < 86400
        ? `${Math.round(seconds / 3600)} h ago`
        : DAY.format(at);
}

/** Brings every relative time under `root` up to date (text written only where it changed). */
export function tickTimes(root) {
  for (const element of root.querySelectorAll('time[data-relative]')) {
    const text = relative(new Date(element.dateTime));
    if (element.textContent !== text) element.textContent = text;
  }
}

/** What `syncRows` last built in each body: key → { row, item, data }. */
const builtRows = new WeakMap();

/**
 * Replaces the rows of `body` by `items`, keyed by `key(item)`: a row whose item is the same
 * object, or has the same data, stays as it is (with its focus); a changed one is brought up
 * to date in place by `update(row, item)` when given (the row stays, only what changed is
 * redrawn), else built anew by `build(item)`. Rows move only when the order changed.
 */
export function syncRows(body, items, key, build, update) {
  const before = builtRows.get(body) ?? new Map();
  const after = new Map();
  let replaced = false;
  const rows = items.map((item) => {
    const id = key(item);
    const old = before.get(id);
    if (old !== undefined && old.item === item) {
      after.set(id, old);
      return old.row;
    }
    const data = JSON.stringify(item);
    let row;
    if (old !== undefined && old.data === data) row = old.row;
    else if (old !== undefined && update !== undefined) {
      update(old.row, item);
      row = old.row;
    } else {
      row = build(item);
      replaced ||= old !== undefined;
    }
    after.set(id, { row, item, data });
    return row;
  });
  builtRows.set(body, after);
  if (replaced || rows.length !== body.children.length || [...before.keys()].some((id) => !after.has(id))) {
    const kept = new Set(rows);
    for (const row of [...body.children]) if (!kept.has(row)) row.remove();
  }
  let at = body.firstElementChild;
  for (const row of rows) {
    if (row === at) at = at.nextElementSibling;
    else body.insertBefore(row, at);
  }
}

export function duration(ms) {
  if (typeof ms !== 'number') return '–';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A status word in its colour (`data-status` picks the colour in app.css; `data-partial`: a success with failed optional stages). */
export function badge(status, failedOptionalStages = 0) {
  return h('span', { class: 'badge', 'data-status': status, 'data-partial': failedOptionalStages > 0 && status === 'succeeded' }, status);
}

/** Beside a status: how many stages failed while the run went on past them (nothing when none did). */
export function failedOptional(count) {
  if (!(count > 0)) return null;
  const text = `with ${count} failed optional stage${count === 1 ? '' : 's'}`;
  return h(
    'span',
    {
      class: 'partial',
      'data-failed-optional': count,
      title: 'Stages that failed while the workflow went on past them (an edge taken on failure)',
    },
    text,
  );
}

/** A message line under a form or at the top of a page; empty text hides it. */
export function notice(element, text, kind = 'error') {
  element.className = `notice ${kind}`;
  element.hidden = !text;
  element.textContent = text ?? '';
}
