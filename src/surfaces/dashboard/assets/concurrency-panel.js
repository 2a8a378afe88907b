// The run page's concurrency panel: the run's concurrency keys and, while it is queued
// behind full ones, which keys it waits for and how many runs hold each (`waiting_for` of
// the run view). A panel (run-panels.js).
import { h } from './dom.js';
import { addRunPanel } from './run-panels.js';

function render(detail) {
  const keys = detail.run.concurrency ?? [];
  if (keys.length === 0) return null;
  const waits = new Map((detail.waiting_for ?? []).map((wait) => [wait.key, wait]));
  return h(
    'section',
    { class: 'card concurrency', 'aria-label': 'Concurrency keys' },
    h('h2', {}, 'Concurrency keys'),
    waits.size > 0
      ? h(
          'p',
          { class: 'waiting', 'data-waiting': 'true' },
          'Queued: waits for a free slot under the keys marked full. It starts when a run holding the key ends or its runner stops.',
        )
      : null,
    h(
      'ul',
      {},
      keys.map((slot) => {
        const wait = waits.get(slot.key);
        return h(
          'li',
          { 'data-key': slot.key },
          h('span', { class: 'mono' }, slot.key),
          ` limit ${slot.limit}`,
          wait ? h('strong', {}, ` — full (${wait.held} of ${wait.limit} held)`) : null,
        );
      }),
    ),
  );
}

addRunPanel({ id: 'concurrency', render });
