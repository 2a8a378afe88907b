import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { linkedAbort } from './linked-abort.js';

describe('linkedAbort', () => {
  it('aborts with its parent, carrying the reason', () => {
    const parent = new AbortController();
    const linked = linkedAbort(parent.signal);
    parent.abort('stopping');
    expect([linked.signal.aborted, linked.signal.reason]).toEqual([true, 'stopping']);
  });

  it('aborts on its own without touching the parent, and starts aborted under an aborted parent', () => {
    const parent = new AbortController();
    const linked = linkedAbort(parent.signal);
    linked.abort('woken');
    expect([linked.signal.aborted, parent.signal.aborted]).toEqual([true, false]);
    parent.abort();
    expect(linkedAbort(parent.signal).signal.aborted).toBe(true);
  });

  it('leaves nothing on a long-lived parent once disposed, however many waits it served', () => {
    const parent = new AbortController();
    for (let wait = 0; wait < 1000; wait++) linkedAbort(parent.signal).dispose();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    const kept = linkedAbort(parent.signal);
    kept.dispose();
    parent.abort();
    expect(kept.signal.aborted).toBe(false);
  });
});
