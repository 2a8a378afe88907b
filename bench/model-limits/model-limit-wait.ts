/**
 * What a free model-limit slot adds to a model call (issue 26: "p99 wait added by a free
 * model-limit slot"): the same instant model call made through `limitModelCalls` with a
 * pool that always has room (the gate's start in the store, the call, its end) and
 * without limits, alternating call by call so drift on the machine hits both alike. The
 * calls are of one run under a live lease, as a stage's are; rows of the window pile up as
 * a busy pool's would (every call stays in the 60 s window).
 */
import { silentLogger } from '../../src/core/logger.js';
import { newId } from '../../src/core/ids.js';
import { limitModelCalls } from '../../src/agent/limited-model-client.js';
import type { ModelClient, ModelTurn } from '../../src/agent/model-client.js';
import { modelCallGate } from '../../src/runs/engine/model-call-gate.js';
import type { ModelCallStore } from '../../src/runs/store/model-call-store.js';
import type { RunStore } from '../../src/runs/store/run-store.js';
import { now } from '../lib/measure.js';
import { summarize } from '../lib/stats.js';

const TURN: ModelTurn = {
  text: 'ok',
  toolCalls: [],
  usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110 },
  finishReason: 'stop',
  messages: [],
};

const instant: ModelClient = {
  provider: 'bench',
  modelId: 'instant',
  toolDialect: 'openai-compatible',
  generate: async () => TURN,
};

export interface LimitWait {
  /** Microseconds per call without limits and with a free slot, and what the slot adds (with − without). */
  without: { p50: number; p99: number };
  with: { p50: number; p99: number };
}

/** `calls` calls each way under a pool with `limits` that never fill. */
export async function modelLimitWait(
  store: RunStore,
  modelCalls: ModelCallStore,
  calls: number,
  limits: { concurrent?: number; requestsPerMinute?: number; tokensPerMinute?: number },
): Promise<LimitWait> {
  const run = await store.createRun({ workflow: 'bench', workflowPath: 'bench.toml', cwd: '/tmp', initialStatus: 'queued' });
  const claimed = await store.claimRun('bench-runner', 600_000);
  if (claimed?.id !== run.id) throw new Error('the bench run was not claimed');
  const gate = modelCallGate({
    store: modelCalls,
    runId: run.id,
    leaseOwner: 'bench-runner',
    clock: Date.now,
    newId,
    logger: silentLogger,
  });
  const limited = limitModelCalls(instant, { 'bench:*': limits }, gate);
  if (limited === instant) throw new Error('the pool did not apply');
  const request = { messages: [], tools: [], signal: new AbortController().signal };
  const without: number[] = [];
  const withSlot: number[] = [];
  for (let index = 0; index < calls + 50; index += 1) {
    let started = now();
    await instant.generate(request);
    const plain = (now() - started) * 1000;
    started = now();
    await limited.generate(request);
    const gated = (now() - started) * 1000;
    // The first 50 of each warm the statements and the connections up.
    if (index < 50) continue;
    without.push(plain);
    withSlot.push(gated);
  }
  const a = summarize(without);
  const b = summarize(withSlot);
  return { without: { p50: a.p50, p99: a.p99 }, with: { p50: b.p50, p99: b.p99 } };
}
