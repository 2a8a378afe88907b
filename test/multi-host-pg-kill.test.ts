/**
 * Scenario 4 of the fault tests: the PostgreSQL host dies (link down, every postgres
 * process SIGKILLed) while runs are queued and running on two worker hosts, and comes back
 * on the same data dir. The workers, never restarted, finish every run; the whole log
 * passes the invariant check. The suite's outage is 15 s (longer than the 10 s PostgreSQL connect timeout, so appends fail rather than wait); bench/chaos/pg-kill.ts runs the
 * 30 s one (docs/multi-host.md, "Tested failures").
 */
import { describe, expect, it } from 'vitest';
import { pgKillScenario } from './fixtures/chaos/pg-kill-scenario.js';
import { canCreateNamespaces } from './helpers/netns.js';

describe('the PostgreSQL host killed under load', () => {
  it('scenario 4: every run ends once it is back, without restarting a worker, and the log is sound', async () => {
    if (!(await canCreateNamespaces())) throw new Error('This test needs root and `ip netns` (iproute2) to create network namespaces.');
    const outageMs = 15_000;
    const result = await pgKillScenario({ outageMs, leaseMs: 30_000, runs: 8, maxParallel: 2, settleMs: 120_000 });
    expect(result.queuedAtKill, 'some runs were still queued when the server died').toBeGreaterThan(0);
    expect(result.runningAtKill, 'some runs were running when the server died').toBeGreaterThan(0);
    expect(Object.values(result.statuses)).toEqual(Object.values(result.statuses).map(() => 'succeeded'));
    expect(result.problems).toEqual([]);
    // Both workers, never restarted, went on starting stages after the server came back.
    expect(Object.keys(result.firstStartMs).sort(), JSON.stringify(result.workerOutput)).toEqual(['w1', 'w2']);
    console.log(
      `PostgreSQL host killed for ${outageMs} ms (lease 30 s: none runs out) with ${result.runningAtKill} runs running and ${result.queuedAtKill} queued: first stage started after it was back by w1 ${result.firstStartMs.w1} ms, w2 ${result.firstStartMs.w2} ms; all ${Object.keys(result.statuses).length} runs ended ${result.allEndedMs} ms after; ${result.abandoned} attempts taken over`,
    );
  }, 300_000);
});
