// The run page's sandbox panel: whether what the run executes runs inside the OS sandbox,
// and with which rules (writable folders, hidden paths, network, process limit), from the
// run's detail (`GET /runs/<id>` → `sandbox`). A panel (run-panels.js).
import { h } from './dom.js';
import { addRunPanel } from './run-panels.js';

function list(label, items, key) {
  return [
    h('dt', {}, label),
    h(
      'dd',
      { [`data-sandbox-${key}`]: '' },
      items.length === 0
        ? h('span', { class: 'muted' }, 'none')
        : h(
            'ul',
            {},
            items.map((item) => h('li', { class: 'mono' }, item)),
          ),
    ),
  ];
}

function render(detail) {
  const sandbox = detail.sandbox;
  if (sandbox === undefined) return null;
  const rules = sandbox.rules;
  if (!sandbox.sandboxed || rules === null) {
    return h(
      'section',
      { class: 'card sandbox', 'aria-label': 'Sandbox', 'data-sandboxed': 'false' },
      h('h2', {}, 'Sandbox'),
      h('p', { class: 'muted' }, `Not sandboxed: ${sandbox.summary}`),
    );
  }
  const network = rules.network === 'none' ? [] : rules.network.allow;
  return h(
    'section',
    { class: 'card sandbox', 'aria-label': 'Sandbox', 'data-sandboxed': 'true' },
    h('h2', {}, 'Sandbox: os'),
    h(
      'dl',
      {},
      ...list('Writable', [...rules.allow_write, 'a private /tmp'], 'write'),
      ...list('Hidden', rules.deny_read, 'hidden'),
      ...list(rules.network === 'none' ? 'Network' : 'Network (through weft’s proxy)', network, 'network'),
      h('dt', {}, 'Processes'),
      h('dd', { 'data-sandbox-processes': '' }, `at most ${rules.max_processes}`),
    ),
  );
}

addRunPanel({ id: 'sandbox', render });
