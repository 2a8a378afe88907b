/**
 * The rate windows of model limits through the engine, on a SQLite store, with the real
 * OpenAI-compatible provider against the fake model server. The store's clock is the
 * host's plus an offset the test moves a minute on, once the calls over a limit are known
 * to be waiting (their agent started, no turn yet): so the window passes when the test
 * says, never by wall-clock timing. The waits are `model-call-throttled` events naming the
 * limit, and nothing counts as a retry. A run cancelled while its call waits stops at once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LlmLimitSetting } from '../src/core/settings/settings.js';
import type { RunEvent } from '../src/runs/model/run-event.js';
import { SqliteRunStore } from '../src/runs/store/sqlite/sqlite-run-store.js';
import { agentRunner, llmSettings } from './fixtures/model-server/agent-kit.js';
import { startModelServer, type ModelServer, type ScriptOutcome } from './fixtures/model-server/model-server.js';
import { until } from './fixtures/workflows-e2e/harness.js';
import { createEngineKit, type EngineKit } from './kits/engine-kit.js';

const MINUTE = 60_000;
const clock = { offset: 0 };
let kit: EngineKit;
let storageDir: string;
let server: ModelServer | undefined;

beforeEach(async () => {
  clock.offset = 0;
  storageDir = await mkdtemp(join(tmpdir(), 'weft-rate-'));
  const store = await SqliteRunStore.open({ storageDir, clock: () => Date.now() + clock.offset });
  kit = await createEngineKit({ store, modelCalls: store.modelCalls() });
  await kit.write('notes.txt', 'alpha\n');
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await kit.close();
  await rm(storageDir, { recursive: true, force: true });
});

const limited = (limits: Record<string, LlmLimitSetting>) => ({ maxRetries: 0, limits });
const PROMPT = '[workflow]\nname = "ask"\n[nodes.ask]\nkind = "prompt"\nprompt = "Hi."\n';
const of = (events: readonly RunEvent[], type: string) => events.filter((event) => event.type === type);

/** Whether the run's agent is calling its model for turn `turn` now (started, that turn not finished). */
async function callingTurn(runId: string, turn: number): Promise<true | undefined> {
  const events = await kit.events(runId);
  const started = of(events, 'agent-started').length > 0;
  return started && of(events, 'model-turn-finished').length === turn - 1 && of(events, 'tool-call-finished').length >= turn - 1
    ? true
    : undefined;
}

describe('model limits: rate windows', () => {
  it('holds the calls past requests_per_minute until the oldest leave the window, recorded as waits, not retries', async () => {
    const arrivals: { offset: number }[] = [];
    const held: (() => void)[] = [];
    server = await startModelServer({
      // The first three answers wait until all three were sent, so all three started in one window.
      script: () =>
        new Promise<ScriptOutcome>((resolve) => {
          arrivals.push({ offset: clock.offset });
          held.push(() => resolve({ text: 'Hello.', usage: { input: 10, output: 2 } }));
          if (arrivals.length >= 3) for (const release of held.splice(0)) release();
        }),
    });
    const llm = llmSettings(server, 'openai-chat', limited({ 'openai-chat:*': { requestsPerMinute: 3 } }));
    const file = await kit.write('wf.toml', PROMPT);
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) ids.push((await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true })).id);
    const worker = kit.startWorker({ agent: agentRunner(llm) });
    try {
      const done = async () => (await Promise.all(ids.map((id) => kit.service.get(id)))).filter((run) => run.status === 'succeeded');
      await until('three runs to succeed', async () => ((await done()).length === 3 ? true : undefined), 30_000, 20);
      const succeeded = new Set((await done()).map((run) => run.id));
      const pending = ids.filter((id) => !succeeded.has(id));
      expect(pending).toHaveLength(2);
      await until(
        'the other two to be calling',
        async () => ((await Promise.all(pending.map((id) => callingTurn(id, 1)))).every(Boolean) ? true : undefined),
        30_000,
        20,
      );
      expect(arrivals).toHaveLength(3);
      clock.offset += MINUTE;
      for (const id of ids) await kit.until(id, (run) => run.status === 'succeeded', 'succeeded');

      expect(arrivals.map((arrival) => arrival.offset)).toEqual([0, 0, 0, MINUTE, MINUTE]);
      for (const id of ids) {
        const events = await kit.events(id);
        expect(of(events, 'model-call-throttled').map((event) => event.payload)).toEqual(
          pending.includes(id)
            ? [
                {
                  turn: 1,
                  model: 'openai-chat:test-model',
                  pattern: 'openai-chat:*',
                  limit: 'requests_per_minute',
                  waitedMs: expect.any(Number),
                },
              ]
            : [],
        );
        expect(of(events, 'model-request-retried')).toEqual([]);
        expect(of(events, 'stage-finished').map((event) => event.payload.retrying)).toEqual([false]);
      }
    } finally {
      await worker.stop();
    }
  });

  it('holds a call while the tokens of calls ended in the window reach tokens_per_minute', async () => {
    const read = { toolCalls: [{ name: 'read_file', arguments: { file_path: 'notes.txt' } }], usage: { input: 60, output: 10 } };
    server = await startModelServer({ script: [read, { text: 'Done.', usage: { input: 60, output: 10 } }] });
    const llm = llmSettings(server, 'openai-chat', limited({ '*': { tokensPerMinute: 50 } }));
    const file = await kit.write(
      'wf.toml',
      '[workflow]\nname = "read"\n[nodes.work]\nkind = "agent"\nprompt = "Read notes.txt."\ntools = ["read_file"]\n',
    );
    const created = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
    const worker = kit.startWorker({ agent: agentRunner(llm) });
    try {
      await until('the second turn to be calling', () => callingTurn(created.id, 2), 30_000, 20);
      expect(server.requests).toHaveLength(1);
      clock.offset += MINUTE;
      await kit.until(created.id, (run) => run.status === 'succeeded', 'succeeded');
    } finally {
      await worker.stop();
    }
    expect(server.requests).toHaveLength(2);
    expect(of(await kit.events(created.id), 'model-call-throttled').map((event) => event.payload)).toEqual([
      { turn: 2, model: 'openai-chat:test-model', pattern: '*', limit: 'tokens_per_minute', waitedMs: expect.any(Number) },
    ]);
  });

  it('stops waiting at once when the run is cancelled', async () => {
    server = await startModelServer({ script: () => ({ text: 'Done.', usage: { input: 1, output: 1 } }) });
    const llm = llmSettings(server, 'openai-chat', limited({ 'openai-chat:*': { requestsPerMinute: 1 } }));
    const file = await kit.write('wf.toml', PROMPT);
    const worker = kit.startWorker({ agent: agentRunner(llm) });
    try {
      const first = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
      await kit.until(first.id, (run) => run.status === 'succeeded', 'succeeded');
      const second = await kit.service.create({ workflow: file, cwd: kit.dir, autoApprove: true });
      await until('the second run to be calling', () => callingTurn(second.id, 1), 30_000, 20);
      await kit.service.cancel(second.id, 'no time to wait');
      expect((await kit.until(second.id, (run) => run.status === 'cancelled', 'cancelled')).status).toBe('cancelled');
      expect(server.requests).toHaveLength(1);
      expect(of(await kit.events(second.id), 'model-call-throttled')).toEqual([]);
    } finally {
      await worker.stop();
    }
  });
});
