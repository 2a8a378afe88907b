// Group commit of PostgreSQL appends, against a real server: one statement per event-loop turn, order kept per run, and each request its own outcome.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WeftError } from '../../../core/errors.js';
import { testPostgres } from '../../../../test/helpers/postgres.js';
import type { NewRunEvent } from '../../model/run-event.js';
import { PostgresRunStore } from './postgres-run-store.js';

let url: string;
let admin: pg.Client;
/** An event whose payload says `hold` waits in its statement until the test lets go of this advisory lock. */
const HOLD_LOCK = 4242;
beforeAll(async () => {
  url = await (await testPostgres()).createDatabase();
  await (await PostgresRunStore.open({ url })).close();
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
  // Counts the statements that insert events, and refuses a payload that asks for it: a failure inside the shared statement.
  await admin.query(`
    CREATE TABLE event_statements (n INTEGER NOT NULL);
    INSERT INTO event_statements VALUES (0);
    CREATE FUNCTION count_event_statement() RETURNS trigger AS $$ BEGIN UPDATE event_statements SET n = n + 1; RETURN NULL; END $$ LANGUAGE plpgsql;
    CREATE TRIGGER events_counted AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION count_event_statement();
    CREATE FUNCTION refuse_poison() RETURNS trigger AS $$ BEGIN IF NEW.payload LIKE '%poison%' THEN RAISE EXCEPTION 'poisoned payload'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql;
    CREATE TRIGGER events_poison BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_poison();
    CREATE FUNCTION wait_on_hold() RETURNS trigger AS $$ BEGIN IF NEW.payload LIKE '%hold%' THEN PERFORM pg_advisory_lock_shared(${HOLD_LOCK}); PERFORM pg_advisory_unlock_shared(${HOLD_LOCK}); END IF; RETURN NEW; END $$ LANGUAGE plpgsql;
    CREATE TRIGGER events_held BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION wait_on_hold();
  `);
});
afterAll(async () => {
  await admin.end();
  await (await testPostgres()).dispose();
});

const params = { workflow: 'build', workflowPath: 'build.toml', cwd: '/work' };
const log = (text: string): NewRunEvent => ({ type: 'log-written', payload: { text } });

async function eventStatements(): Promise<number> {
  return (await admin.query<{ n: number }>('SELECT n FROM event_statements')).rows[0]?.n ?? 0;
}

/**
 * Starts `append` (its events say `hold`) with the hold lock taken, and resolves once its
 * statement waits on the lock; `release` lets it finish.
 */
async function heldInFlight<T>(
  append: () => Promise<T>,
): Promise<{ written: Promise<T>; settled: () => boolean; release: () => Promise<T> }> {
  await admin.query('SELECT pg_advisory_lock($1)', [HOLD_LOCK]);
  let done = false;
  const written = append().finally(() => (done = true));
  written.catch(() => undefined);
  const waiting = async () =>
    (
      await admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted",
        [HOLD_LOCK],
      )
    ).rows[0]?.n ?? 0;
  while ((await waiting()) === 0) await new Promise((resolve) => setImmediate(resolve));
  return {
    written,
    settled: () => done,
    release: async () => {
      await admin.query('SELECT pg_advisory_unlock($1)', [HOLD_LOCK]);
      return written;
    },
  };
}

async function texts(store: PostgresRunStore, id: string): Promise<unknown[]> {
  const events = await store.listEvents(id);
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  return events.filter((event) => event.type === 'log-written').map((event) => event.payload.text);
}

describe('PostgreSQL group commit', () => {
  it('writes the appends of one turn, for several runs and several to one run, in one statement and in order', async () => {
    const store = await PostgresRunStore.open({ url });
    try {
      const [a, b] = [await store.createRun(params), await store.createRun(params)];
      // Warm: each run's head known to the store, so the turn needs nothing but the write.
      await Promise.all([store.appendEvents(a.id, [log('a0')]), store.appendEvents(b.id, [log('b0')])]);
      const before = await eventStatements();
      const results = await Promise.all([
        store.appendEvents(a.id, [log('a1')]),
        store.appendEvents(b.id, [log('b1')]),
        store.appendEvents(a.id, [log('a2'), log('a3')]),
        store.appendEvents(a.id, [log('a4')]),
      ]);
      expect(await eventStatements()).toBe(before + 1);
      const head = a.counts.events + 1;
      expect(results.map((events) => events.map((event) => event.seq))).toEqual([[head + 1], [head + 1], [head + 2, head + 3], [head + 4]]);
      expect(await texts(store, a.id)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
      expect(await texts(store, b.id)).toEqual(['b0', 'b1']);
      expect((await store.getRun(a.id))?.counts.events).toBe(head + 4);
    } finally {
      await store.close();
    }
  });

  it('fails only the request the database refuses: the others of its turn are written, before and after it on the same run', async () => {
    const store = await PostgresRunStore.open({ url });
    try {
      const [a, b] = [await store.createRun(params), await store.createRun(params)];
      const outcomes = await Promise.allSettled([
        store.appendEvents(a.id, [log('a1')]),
        store.appendEvents(b.id, [log('poison')]),
        store.appendEvents(b.id, [log('b2')]),
        store.appendEvents(a.id, [log('a2')]),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      const refused = (outcomes[1] as PromiseRejectedResult).reason as unknown;
      expect(WeftError.is(refused, 'STORE_FAILED') && (refused as Error).message).toContain('poisoned payload');
      expect(await texts(store, a.id)).toEqual(['a1', 'a2']);
      expect(await texts(store, b.id)).toEqual(['b2']);
    } finally {
      await store.close();
    }
  });

  it('refuses, in a shared turn, the append of a runner whose lease was taken over since its last write, and writes the rest', async () => {
    const runner = await PostgresRunStore.open({ url, clock: () => 1_000 });
    const other = await PostgresRunStore.open({ url, clock: () => 100_000 });
    try {
      const fenced = await runner.createRun({ ...params, initialStatus: 'queued' });
      const free = await runner.createRun(params);
      expect((await runner.claimRun('runner-a', 5_000))?.id).toBe(fenced.id);
      await runner.appendEvents(fenced.id, [log('mine')], { leaseOwner: 'runner-a' });
      // runner-a's lease ran out (on the other store's clock) and runner-b took the run over.
      expect((await other.claimRun('runner-b', 5_000))?.id).toBe(fenced.id);
      await other.appendEvents(fenced.id, [log('taken over')], { leaseOwner: 'runner-b' });

      const outcomes = await Promise.allSettled([
        runner.appendEvents(fenced.id, [log('late')], { leaseOwner: 'runner-a' }),
        runner.appendEvents(free.id, [log('free')]),
      ]);
      expect(outcomes[0].status === 'rejected' && WeftError.is(outcomes[0].reason, 'RUN_LEASE_LOST')).toBe(true);
      expect(outcomes[1].status).toBe('fulfilled');
      expect(await texts(other, fenced.id)).toEqual(['mine', 'taken over']);
      expect(await texts(other, free.id)).toEqual(['free']);
    } finally {
      await Promise.all([runner.close(), other.close()]);
    }
  });

  describe('with batches in flight side by side', () => {
    const sideBySide = { appendBatches: { inFlight: 3, minRunsToSplit: 1 } };

    it('writes other runs while a batch waits, and holds the later appends of the waiting run until it is written, in order', async () => {
      const store = await PostgresRunStore.open({ url, ...sideBySide });
      try {
        const [a, b] = [await store.createRun(params), await store.createRun(params)];
        const held = await heldInFlight(() => store.appendEvents(a.id, [log('hold')]));
        let laterDone = false;
        const later = store.appendEvents(a.id, [log('a after')]).finally(() => (laterDone = true));
        // b's append is written while a's batch still waits on the lock (one batch in flight would queue it behind).
        expect((await store.appendEvents(b.id, [log('b1')])).map((event) => event.seq)).toEqual([b.counts.events + 1]);
        expect(await texts(store, b.id)).toEqual(['b1']);
        expect([held.settled(), laterDone]).toEqual([false, false]);
        await held.release();
        expect((await later).map((event) => event.seq)).toEqual([a.counts.events + 2]);
        expect(await texts(store, a.id)).toEqual(['hold', 'a after']);
      } finally {
        await store.close();
      }
    });

    it('fails only the requests of a statement that fails: the batch in flight beside it and the other runs are written', async () => {
      const store = await PostgresRunStore.open({ url, ...sideBySide });
      try {
        const [a, b, c] = [await store.createRun(params), await store.createRun(params), await store.createRun(params)];
        const held = await heldInFlight(() => store.appendEvents(a.id, [log('hold')]));
        const outcomes = await Promise.allSettled([
          store.appendEvents(b.id, [log('poison')]),
          store.appendEvents(c.id, [log('c1')]),
          store.appendEvents(b.id, [log('b2')]),
        ]);
        expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
        expect(held.settled()).toBe(false);
        expect((await held.release()).map((event) => event.seq)).toEqual([a.counts.events + 1]);
        expect(await texts(store, a.id)).toEqual(['hold']);
        expect(await texts(store, b.id)).toEqual(['b2']);
        expect(await texts(store, c.id)).toEqual(['c1']);
      } finally {
        await store.close();
      }
    });

    it('refuses a fenced-out runner in one batch while its lease-holding appends are written in another', async () => {
      const runner = await PostgresRunStore.open({ url, clock: () => 1_000, ...sideBySide });
      const other = await PostgresRunStore.open({ url, clock: () => 100_000 });
      try {
        const lost = await runner.createRun({ ...params, initialStatus: 'queued' });
        const kept = await runner.createRun({ ...params, initialStatus: 'queued' });
        expect((await runner.claimRun('runner-a', 5_000))?.id).toBe(lost.id);
        expect((await other.claimRun('runner-b', 5_000))?.id).toBe(lost.id);
        expect((await runner.claimRun('runner-a', 500_000))?.id).toBe(kept.id);
        const held = await heldInFlight(() => runner.appendEvents(kept.id, [log('hold')], { leaseOwner: 'runner-a' }));
        const late = runner.appendEvents(lost.id, [log('late')], { leaseOwner: 'runner-a' });
        await expect(late).rejects.toSatisfy((error: unknown) => WeftError.is(error, 'RUN_LEASE_LOST'));
        const mine = runner.appendEvents(kept.id, [log('mine')], { leaseOwner: 'runner-a' });
        await held.release();
        expect((await mine).map((event) => event.seq)).toEqual([kept.counts.events + 2]);
        expect(await texts(other, kept.id)).toEqual(['hold', 'mine']);
        expect(await texts(other, lost.id)).toEqual([]);
      } finally {
        await Promise.all([runner.close(), other.close()]);
      }
    });
  });
});
