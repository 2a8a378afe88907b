// RunService.wait is woken by the store's change notices: with every timer frozen, a run ending still ends the wait; the
// timers left are the deadline and the end of a runner's lease, when nobody writes but the run needs a new runner.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RunRecord } from '../../runs/model/run-record.js';
import { RunService } from './run-service.js';
import { MemoryRunStore } from '../../runs/store/memory/memory-run-store.js';

const T0 = Date.UTC(2025, 0, 1);

describe('RunService.wait', () => {
  let now = T0;
  let store: MemoryRunStore;
  let service: RunService;
  let wakes = 0;

  beforeEach(() => {
    // Frozen timers: only what the test advances fires, so a wait that ends proves a notice ended it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate'] });
    now = T0;
    wakes = 0;
    store = new MemoryRunStore({ clock: () => now });
    service = new RunService({ store, clock: () => now, wakeRunners: () => (wakes += 1) });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await store.close();
  });

  /** A run a runner holds (leased for `leaseMs`), now `running`. */
  async function runningRun(leaseMs = 60_000): Promise<RunRecord> {
    const run = await store.createRun({ workflow: 'build', workflowPath: 'build.toml', cwd: '/work', initialStatus: 'queued' });
    await store.claimRun('runner-1', leaseMs);
    await store.appendEvents(run.id, [
      { type: 'run-status-changed', payload: { to: 'starting' } },
      { type: 'run-status-changed', payload: { to: 'running' } },
    ]);
    return run;
  }

  it('returns when the runs end, woken by the store and not by a timer', async () => {
    const [first, second] = [await runningRun(), await runningRun()];
    if (!first || !second) throw new Error('no runs');
    const seen: string[][] = [];
    const waiting = service.wait([first.id, second.id], 60_000, undefined, (runs) => seen.push(runs.map((run) => run.status)));
    await store.appendEvents(first.id, [{ type: 'run-status-changed', payload: { to: 'succeeded' } }]);
    await store.appendEvents(second.id, [{ type: 'run-status-changed', payload: { to: 'failed' } }]);
    const result = await waiting;
    expect({ timedOut: result.timedOut, statuses: result.runs.map((run) => run.status) }).toEqual({
      timedOut: false,
      statuses: ['succeeded', 'failed'],
    });
    expect(seen.at(0)).toEqual(['running', 'running']);
    expect(seen.at(-1)).toEqual(['succeeded', 'failed']);
    expect(wakes).toBe(0);
  });

  it('sees a run that ends before the wait reads it', async () => {
    const run = await runningRun();
    await store.appendEvents(run.id, [{ type: 'run-status-changed', payload: { to: 'cancelled' } }]);
    expect((await service.wait([run.id], 60_000)).runs.map((each) => each.status)).toEqual(['cancelled']);
  });

  it('gives up at the deadline, and at once when the signal aborts', async () => {
    const run = await runningRun();
    const waiting = service.wait([run.id], 5_000);
    await vi.advanceTimersByTimeAsync(4_999);
    now += 5_000;
    await vi.advanceTimersByTimeAsync(1);
    expect(await waiting).toMatchObject({ timedOut: true, runs: [{ id: run.id, status: 'running' }] });

    const controller = new AbortController();
    const aborted = service.wait([run.id], 60_000, controller.signal);
    controller.abort();
    expect(await aborted).toMatchObject({ timedOut: true, runs: [{ status: 'running' }] });
  });

  it("wakes the runners when a run's lease runs out although nobody writes", async () => {
    const run = await runningRun(10_000);
    const waiting = service.wait([run.id], 60_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(wakes).toBe(0);
    now += 10_000;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(wakes).toBe(1);
    await store.appendEvents(run.id, [{ type: 'run-status-changed', payload: { to: 'succeeded' } }]);
    expect((await waiting).timedOut).toBe(false);
  });
});
