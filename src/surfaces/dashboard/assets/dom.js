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
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** `3 min ago` for an ISO time or epoch ms; the exact time is the element's tooltip. `tickTimes` keeps it current. */
export function when(time) {
  if (time === null || time === undefined) return h('span', {}, '–');
  const at = new Date(time);
  return h('time', { datetime: at.toISOString(), title: at.toLocaleString(), 'data-relative': true }, relative(at));
}

function relative(at) {
  const seconds = Math.round((Date.now() - at.getTime()) / 1000);
  return seconds < 45 ? 'just now' : seconds < 3600 ? `${Math.round(seconds / 60)} min ago` : seconds < 86400 ? `${Math.round(seconds / 3600)} h ago` : at.toLocaleDateString();
}

/** Brings every relative time under `root` up to date (text written only where it changed). */
export function tickTimes(root) {
  for (const element of root.querySelectorAll('time[data-relative]')) {
    const text = relative(new Date(element.dateTime));
    if (element.textContent !== text) element.textContent = text;
  }
}

/** What `syncRows` last built in each body: key → { row, data }. */
const builtRows = new WeakMap();

/** Replaces the rows of `body` by `items`, keyed by `key(item)`: a row whose data did not change stays (with its focus), others are built by `build(item)`. */
export function syncRows(body, items, key, build) {
  const before = builtRows.get(body) ?? new Map();
  const after = new Map();
  const rows = items.map((item) => {
    const id = key(item);
    const data = JSON.stringify(item);
    const old = before.get(id);
    const row = old !== undefined && old.data === data ? old.row : build(item);
    after.set(id, { row, data });
    return row;
  });
  builtRows.set(body, after);
  const kept = new Set(rows);
  for (const row of [...body.children]) if (!kept.has(row)) row.remove();
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

/** A status word in its colour (`data-status` picks the colour in app.css). */
export function badge(status) {
  return h('span', { class: 'badge', 'data-status': status }, status);
}

/** Beside a status: how many stages failed while the run went on past them (nothing when none did). */
export function failedOptional(count) {
  if (!(count > 0)) return null;
  const text = `with ${count} failed optional stage${count === 1 ? '' : 's'}`;
  return h('span', { class: 'partial', 'data-failed-optional': count, title: 'Stages that failed while the workflow went on past them (an edge taken on failure)' }, text);
}

/** A message line under a form or at the top of a page; empty text hides it. */
export function notice(element, text, kind = 'error') {
  element.className = `notice ${kind}`;
  element.hidden = !text;
  element.textContent = text ?? '';
}
