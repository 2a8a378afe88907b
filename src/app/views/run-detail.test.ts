// A run read again folds on from where the last read stopped: the same stages and token totals as a fold of the whole log,
// tokens never counted twice, no event read at all while the run is unchanged, and the oldest runs dropped past capacity.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_EVENT, ENGINE_EVENT } from '../../runs/model/event-types.js';
import { MemoryRunStore } from '../../runs/store/memory/memory-run-store.js';
import type { ListEventsOptions } from '../../runs/store/run-store.js';
import type { RunEvent } from '../../runs/model/run-event.js';
import { readRunDetail, RunDetails } from './run-detail.js';
import { RunService } from '../services/run-service.js';

/** A memory store that counts the times events are read. */
class CountingStore extends MemoryRunStore {
  eventReads = 0;
  override listEvents(id: string, options?: ListEventsOptions): Promise<RunEvent[]> {
    this.eventReads += 1;
    return super.listEvents(id, options);
  }
}

const params = { workflow: 'build', workflowPath: 'build.toml', cwd: '/work' };
const started = (stageId: string) => ({
  type: ENGINE_EVENT.stageStarted,
  stageId,
  payload: { node: stageId.split('@')[0]!, kind: 'agent' },
});
const finished = (stageId: string, output: string) => ({
  type: ENGINE_EVENT.stageFinished,
  stageId,
  payload: { status: 'succeeded', durationMs: 40, output },
});
const turn = (stageId: string, tokens: number) => ({
  type: AGENT_EVENT.modelTurnFinished,
  stageId,
  payload: { usage: { inputTokens: tokens, outputTokens: 1, totalTokens: tokens + 1 } },
});

describe('RunDetails', () => {
  let store: CountingStore;
  let runs: RunService;

  beforeEach(() => {
    store = new CountingStore();
    runs = new RunService({ store, clock: Date.now, wakeRunners: () => {} });
  });
  afterEach(async () => {
    await store.close();
  });

  it('says which full concurrency keys a queued run waits for, and nothing once the key frees', async () => {
    const concurrency = [{ key: 'repo:a', limit: 1 }];
    const holder = await store.createRun({ ...params, concurrency, initialStatus: 'queued' });
    const waiting = await store.createRun({ ...params, concurrency, initialStatus: 'queued' });
    expect((await store.claimRun('w', 60_000))?.id).toBe(holder.id);
    const detail = await readRunDetail(runs, waiting.id);
    expect(detail.run.concurrency).toEqual(concurrency);
    expect(detail.waiting_for).toEqual([{ key: 'repo:a', limit: 1, held: 1 }]);
    expect((await readRunDetail(runs, holder.id)).waiting_for).toEqual([]);
    await store.releaseLease(holder.id, 'w');
    expect((await readRunDetail(runs, waiting.id)).waiting_for).toEqual([]);
  });

  it('folds on from the last read, matching a fold of the whole log, and reads nothing while the run is unchanged', async () => {
    const run = await store.createRun(params);
    const details = new RunDetails();
    await store.appendEvents(run.id, [started('plan@1'), turn('plan@1', 10)]);
    expect(await details.read(runs, run.id)).toEqual(await readRunDetail(runs, run.id));

    await store.appendEvents(run.id, [turn('plan@1', 20), finished('plan@1', 'the plan\nin detail'), started('build@1')]);
    const grown = await details.read(runs, run.id);
    expect(grown).toEqual(await readRunDetail(runs, run.id));
    expect(grown.tokens).toEqual({ input: 30, output: 2, total: 32, cached_input: null, cache_write: null, reasoning: null });
    expect(grown.stages.map((stage) => [stage.stage_id, stage.status, stage.output_preview])).toEqual([
      ['plan@1', 'succeeded', 'the plan'],
      ['build@1', 'running', null],
    ]);

    store.eventReads = 0;
    expect(await details.read(runs, run.id)).toEqual(grown);
    expect(store.eventReads).toBe(0);
    // What a caller does with an answer does not reach the cached fold.
    grown.stages[1]!.status = 'edited';
    await store.appendEvents(run.id, [finished('build@1', 'built')]);
    const done = await details.read(runs, run.id);
    expect(store.eventReads).toBe(1);
    expect(done).toEqual(await readRunDetail(runs, run.id));
    expect(done.stages[1]).toMatchObject({ status: 'succeeded', output_preview: 'built' });
  });

  it('keeps the folds of the runs read most recently, up to its capacity', async () => {
    const [first, second, third] = [await store.createRun(params), await store.createRun(params), await store.createRun(params)];
    const details = new RunDetails(2);
    for (const run of [first, second, first, third]) await details.read(runs, run.id);
    expect(details.size).toBe(2);
    store.eventReads = 0;
    await details.read(runs, first.id);
    await details.read(runs, third.id);
    expect(store.eventReads).toBe(0);
    await details.read(runs, second.id);
    expect(store.eventReads).toBe(1);
  });
});
