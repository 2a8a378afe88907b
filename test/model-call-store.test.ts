/**
 * The model-limit store on both stores (SQLite file, embedded PostgreSQL), on an injected
 * clock: a pool's concurrent slots, held only under a live lease of the call's owner; the
 * request and token windows and when they say to look again; and a call under several
 * pools recorded in none when one is full.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/core/ids.js';
import type { ModelCallStore } from '../src/runs/store/model-call-store.js';
import type { RunStore } from '../src/runs/store/run-store.js';
import { PostgresRunStore } from '../src/runs/store/postgres/postgres-run-store.js';
import { SqliteRunStore } from '../src/runs/store/sqlite/sqlite-run-store.js';
import { testPostgres } from './helpers/postgres.js';

const WINDOW = 60_000;

interface Subject {
  store: RunStore;
  calls: ModelCallStore;
  clock: { now: number };
  close(): Promise<void>;
}

/** A run claimed by `owner` at the clock's time, for `leaseMs`. */
async function leasedRun(subject: Subject, owner: string, leaseMs = 10_000): Promise<string> {
  const run = await subject.store.createRun({ workflow: 'w', workflowPath: '/w.toml', cwd: '/', initialStatus: 'queued' });
  const claimed = await subject.store.claimRun(owner, leaseMs, subject.clock.now);
  expect(claimed?.id).toBe(run.id);
  return run.id;
}

function suite(name: string, open: () => Promise<Subject>): void {
  describe(name, () => {
    let subject: Subject;
    const start = (runId: string, owner: string, pools: Parameters<ModelCallStore['tryStart']>[0]['pools'], callId = newId()) =>
      subject.calls.tryStart({ callId, runId, leaseOwner: owner, pools, windowMs: WINDOW });

    afterEach(async () => subject?.close());

    it('gives out concurrent slots up to the limit and one more when a call ends', async () => {
      subject = await open();
      const pool = [{ pattern: 'anthropic:*', concurrent: 2 }];
      const runs = [await leasedRun(subject, 'w1'), await leasedRun(subject, 'w2'), await leasedRun(subject, 'w3')];
      const first = newId();
      expect(await start(runs[0]!, 'w1', pool, first)).toEqual({ started: true });
      expect(await start(runs[1]!, 'w2', pool)).toEqual({ started: true });
      expect(await start(runs[2]!, 'w3', pool)).toEqual({
        started: false,
        pattern: 'anthropic:*',
        limit: 'concurrent',
        retryAfterMs: null,
      });
      await subject.calls.finish(first, 10);
      expect(await start(runs[2]!, 'w3', pool)).toEqual({ started: true });
    });

    it('stops counting a call in flight once its run’s lease runs out', async () => {
      subject = await open();
      const pool = [{ pattern: 'openai:*', concurrent: 1 }];
      const short = await leasedRun(subject, 'dies', 1_000);
      const other = await leasedRun(subject, 'lives', 100_000);
      expect(await start(short, 'dies', pool)).toEqual({ started: true });
      expect(await start(other, 'lives', pool)).toMatchObject({ started: false, limit: 'concurrent' });
      subject.clock.now += 999;
      expect(await start(other, 'lives', pool)).toMatchObject({ started: false, limit: 'concurrent' });
      subject.clock.now += 2;
      expect(await start(other, 'lives', pool)).toEqual({ started: true });
    });

    it('stops counting a call in flight once another runner took its run over', async () => {
      subject = await open();
      const pool = [{ pattern: 'openai:*', concurrent: 1 }];
      const taken = await leasedRun(subject, 'first', 100_000);
      const other = await leasedRun(subject, 'lives', 100_000);
      expect(await start(taken, 'first', pool)).toEqual({ started: true });
      expect(await start(other, 'lives', pool)).toMatchObject({ started: false, limit: 'concurrent' });
      expect(await subject.store.releaseLease(taken, 'first')).toBe(true);
      await subject.store.appendEvents(taken, [{ type: 'run-status-changed', payload: { from: 'queued', to: 'starting' } }]);
      expect((await subject.store.claimRun('second', 100_000, subject.clock.now))?.id).toBe(taken);
      expect(await start(other, 'lives', pool)).toEqual({ started: true });
    });

    it('counts requests started in the window and says when the oldest leaves it', async () => {
      subject = await open();
      const pool = [{ pattern: 'anthropic:claude-*', requestsPerMinute: 2 }];
      const run = await leasedRun(subject, 'w', 1_000_000);
      const ids = [newId(), newId()];
      expect(await start(run, 'w', pool, ids[0])).toEqual({ started: true });
      await subject.calls.finish(ids[0]!, 5);
      subject.clock.now += 10_000;
      expect(await start(run, 'w', pool, ids[1])).toEqual({ started: true });
      await subject.calls.finish(ids[1]!, 5);
      subject.clock.now += 10_000;
      expect(await start(run, 'w', pool)).toEqual({
        started: false,
        pattern: 'anthropic:claude-*',
        limit: 'requests_per_minute',
        retryAfterMs: 40_000,
      });
      subject.clock.now += 40_000;
      expect(await start(run, 'w', pool)).toEqual({ started: true });
    });

    it('counts the tokens of calls that ended in the window; a call may start with room and overshoot', async () => {
      subject = await open();
      const pool = [{ pattern: '*', tokensPerMinute: 100 }];
      const run = await leasedRun(subject, 'w', 1_000_000);
      const ids = [newId(), newId()];
      expect(await start(run, 'w', pool, ids[0])).toEqual({ started: true });
      await subject.calls.finish(ids[0]!, 80);
      subject.clock.now += 1_000;
      expect(await start(run, 'w', pool, ids[1])).toEqual({ started: true });
      await subject.calls.finish(ids[1]!, 50);
      subject.clock.now += 1_000;
      expect(await start(run, 'w', pool)).toEqual({ started: false, pattern: '*', limit: 'tokens_per_minute', retryAfterMs: 58_000 });
      subject.clock.now += 58_000;
      expect(await start(run, 'w', pool)).toEqual({ started: true });
    });

    it('records a call under several pools in none of them when one is full', async () => {
      subject = await open();
      const a = { pattern: 'anthropic:*', concurrent: 1 };
      const b = { pattern: '*:*', concurrent: 1 };
      const run = await leasedRun(subject, 'w');
      expect(await start(run, 'w', [a])).toEqual({ started: true });
      expect(await start(run, 'w', [a, b])).toMatchObject({ started: false, pattern: 'anthropic:*', limit: 'concurrent' });
      expect(await start(run, 'w', [b])).toEqual({ started: true });
    });
  });
}

suite('the model-limit store on SQLite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'weft-model-calls-'));
  const clock = { now: 1_000_000 };
  const store = await SqliteRunStore.open({ storageDir: dir, clock: () => clock.now });
  return {
    store,
    calls: store.modelCalls(),
    clock,
    close: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe('on PostgreSQL', () => {
  beforeAll(async () => {
    await testPostgres();
  });
  afterAll(async () => (await testPostgres()).dispose());
  suite('the model-limit store on PostgreSQL', async () => {
    const clock = { now: 1_000_000 };
    const store = await PostgresRunStore.open({ url: await (await testPostgres()).createDatabase(), clock: () => clock.now });
    return { store, calls: store.modelCalls(), clock, close: () => store.close() };
  });
});
