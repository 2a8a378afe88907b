// The dashboard's entry: a hash router (#/runs, #/runs/<id>, #/mcp, #/login) that gives
// each page the main element and a signal that aborts when the person leaves the page.
import { api, setUnauthorizedHandler } from './api.js';
import { tickTimes } from './dom.js';
import { renderLogin } from './login-page.js';
import { renderMcp } from './mcp-page.js';
import { renderRun } from './run-page.js';
import { renderRuns } from './runs-page.js';
import { renderSchedules } from './schedules-page.js';
// Run page panels register themselves (run-panels.js); features add theirs with one line here.
import './run-timeline.js';
import './run-family.js';
import './run-produced.js';
import './run-sandbox.js';
import './concurrency-panel.js';

const main = document.getElementById('main');
const logout = document.getElementById('logout');
let leave = new AbortController();

/** How often relative times ("3 min ago") are brought up to date. */
const TICK_MS = 15_000;

function route() {
  const hash = location.hash.replace(/^#/, '').replace(/\?.*$/, '') || '/runs';
  const run = /^\/runs\/([0-9A-Za-z]+)$/.exec(hash);
  if (hash === '/login') return { name: 'login', render: renderLogin };
  if (run) return { name: 'runs', render: (root, signal) => renderRun(root, signal, run[1]) };
  if (hash === '/mcp') return { name: 'mcp', render: renderMcp };
  if (hash === '/schedules') return { name: 'schedules', render: renderSchedules };
  return { name: 'runs', render: renderRuns };
}

async function show() {
  leave.abort();
  leave = new AbortController();
  const page = route();
  for (const link of document.querySelectorAll('[data-nav]')) link.toggleAttribute('aria-current', link.dataset.nav === page.name);
  logout.hidden = page.name === 'login';
  main.replaceChildren();
  document.title = 'weft';
  await page.render(main, leave.signal);
}

setUnauthorizedHandler(() => {
  if (location.hash === '#/login') return;
  // Logging in brings the person back to the page they asked for (login-page.js reads it).
  sessionStorage.setItem('weft:after-login', location.hash || '#/runs');
  location.hash = '#/login';
});
logout.addEventListener('click', async () => {
  await api('POST', '/logout').catch(() => {});
  location.hash = '#/login';
});
window.addEventListener('hashchange', () => void show());
setInterval(() => tickTimes(main), TICK_MS);
void show();
