import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newId } from '../core/ids.js';
import { silentLogger } from '../core/logger.js';
import { modelCallGate } from '../runs/engine/model-call-gate.js';
import { SqliteRunStore } from '../runs/store/sqlite/sqlite-run-store.js';
import { limitModelCalls, limitPools } from './limited-model-client.js';
import type { ModelClient, ModelTurn } from './model-client.js';

const TURN: ModelTurn = {
  text: 'ok',
  toolCalls: [],
  usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 },
  finishReason: 'stop',
  messages: [],
};

describe('the limited model client', () => {
  it('puts a call under every [llm.limits] pool whose pattern matches provider:model', () => {
    const limits = {
      'anthropic:*': { concurrent: 4 },
      '*': { requestsPerMinute: 100 },
      'openai:*': { concurrent: 1 },
      'anthropic:claude-opus*': { tokensPerMinute: 9 },
    };
    expect(limitPools(limits, 'anthropic', 'claude-sonnet-4-5')).toEqual([
      { pattern: 'anthropic:*', concurrent: 4 },
      { pattern: '*', requestsPerMinute: 100 },
    ]);
    expect(limitPools(undefined, 'anthropic', 'x')).toEqual([]);
  });

  it('waits for a slot held by another call, says so before sending, and frees its slot however the call ends', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-limited-client-'));
    const store = await SqliteRunStore.open({ storageDir: dir });
    try {
      const calls = store.modelCalls();
      const run = await store.createRun({ workflow: 'w', workflowPath: '/w.toml', cwd: '/', initialStatus: 'queued' });
      expect((await store.claimRun('runner', 60_000))?.id).toBe(run.id);
      const gate = modelCallGate({ store: calls, runId: run.id, leaseOwner: 'runner', clock: Date.now, newId, logger: silentLogger });
      let fail = false;
      const sent: number[] = [];
      const inner: ModelClient = {
        provider: 'p',
        modelId: 'm',
        toolDialect: 'openai-compatible',
        generate: async () => {
          sent.push(Date.now());
          if (fail) throw new Error('503');
          return TURN;
        },
      };
      const limits = { 'p:*': { concurrent: 1 } };
      expect(limitModelCalls(inner, { 'q:*': { concurrent: 1 } }, gate)).toBe(inner);
      expect(limitModelCalls(inner, limits, undefined)).toBe(inner);
      const limited = limitModelCalls(inner, limits, gate);

      // Another call holds the pool's only slot: this one waits and says so once it goes.
      const other = newId();
      const pools = [{ pattern: 'p:*', concurrent: 1 }];
      expect(await calls.tryStart({ callId: other, runId: run.id, leaseOwner: 'runner', pools, windowMs: 60_000 })).toEqual({
        started: true,
      });
      const throttles: { waitedMs: number; sentBefore: number }[] = [];
      const request = {
        messages: [],
        tools: [],
        signal: new AbortController().signal,
        onThrottled: (throttle: { pattern: string; limit: string; waitedMs: number }) =>
          void throttles.push({ ...throttle, sentBefore: sent.length }),
      };
      // SQLite's first look runs synchronously inside generate(): it is refused before the other call ends.
      const turn = limited.generate(request);
      await calls.finish(other, 0);
      expect(await turn).toBe(TURN);
      expect(throttles).toEqual([{ pattern: 'p:*', limit: 'concurrent', waitedMs: expect.any(Number), sentBefore: 0 }]);

      // Its slot was freed after it (a call now finds room), also after a failed call.
      fail = true;
      await expect(limited.generate(request)).rejects.toThrow('503');
      expect(await calls.tryStart({ callId: newId(), runId: run.id, leaseOwner: 'runner', pools, windowMs: 60_000 })).toEqual({
        started: true,
      });
      expect(throttles).toHaveLength(1);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
