/**
 * Schedules and webhook triggers in the SQLite store's database (see schedule-store.ts for
 * the rules). Each write is one immediate transaction on the store's own connection, so a
 * claim is atomic across every process sharing the file.
 */
import type Database from 'better-sqlite3';
import { retryWhileLocked } from './lock-retry.js';
import { toStoreError } from './sqlite-errors.js';
import type {
  DeliveryRecord,
  FireState,
  ScheduleFire,
  ScheduleRecord,
  ScheduleSpec,
  ScheduleStore,
  TriggerRecord,
  TriggerSpec,
} from '../schedule-store.js';

interface ScheduleRow {
  name: string;
  spec: string;
  paused: number;
  next_due: number | null;
  created_at: number;
  updated_at: number;
}

interface FireRow {
  schedule: string;
  due_at: number;
  run_id: string;
  state: FireState;
  claimed_by: string;
  claimed_at: number;
}

const ATTEMPTS = 5;

function scheduleOf(row: ScheduleRow): ScheduleRecord {
  return {
    name: row.name,
    spec: JSON.parse(row.spec) as ScheduleSpec,
    paused: row.paused !== 0,
    nextDue: row.next_due,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function fireOf(row: FireRow): ScheduleFire {
  return {
    schedule: row.schedule,
    dueAt: row.due_at,
    runId: row.run_id,
    state: row.state,
    claimedBy: row.claimed_by,
    claimedAt: row.claimed_at,
  };
}

export class SqliteScheduleStore implements ScheduleStore {
  readonly #db: Database;
  readonly #file: string;

  constructor(db: Database) {
    this.#db = db;
    this.#file = db.name;
  }

  async #do<T>(action: string, write: boolean, body: () => T): Promise<T> {
    try {
      return await retryWhileLocked({ attempts: ATTEMPTS, delayMs: 25 }, () => (write ? this.#db.transaction(body).immediate() : body()));
    } catch (error) {
      throw toStoreError(error, this.#file, action, ATTEMPTS);
    }
  }

  putSchedule(name: string, spec: ScheduleSpec, nextDue: number | null, now: number): Promise<ScheduleRecord> {
    return this.#do('save a schedule', true, () => {
      this.#db
        .prepare(
          'INSERT INTO schedules (name, spec, paused, next_due, created_at, updated_at) VALUES (?, ?, 0, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET spec = excluded.spec, next_due = excluded.next_due, updated_at = excluded.updated_at',
        )
        .run(name, JSON.stringify(spec), nextDue, now, now);
      return scheduleOf(this.#db.prepare<ScheduleRow>('SELECT * FROM schedules WHERE name = ?').get(name)!);
    });
  }

  getSchedule(name: string): Promise<ScheduleRecord | undefined> {
    return this.#do('read a schedule', false, () => {
      const row = this.#db.prepare<ScheduleRow>('SELECT * FROM schedules WHERE name = ?').get(name);
      return row === undefined ? undefined : scheduleOf(row);
    });
  }

  listSchedules(): Promise<ScheduleRecord[]> {
    return this.#do('list schedules', false, () =>
      this.#db.prepare<ScheduleRow>('SELECT * FROM schedules ORDER BY name').all().map(scheduleOf),
    );
  }

  setPaused(name: string, paused: boolean, nextDue: number | null, now: number): Promise<ScheduleRecord | undefined> {
    return this.#do('pause or resume a schedule', true, () => {
      const changed = this.#db
        .prepare('UPDATE schedules SET paused = ?, next_due = ?, updated_at = ? WHERE name = ?')
        .run(paused ? 1 : 0, nextDue, now, name).changes;
      if (changed === 0) return undefined;
      return scheduleOf(this.#db.prepare<ScheduleRow>('SELECT * FROM schedules WHERE name = ?').get(name)!);
    });
  }

  deleteSchedule(name: string): Promise<boolean> {
    return this.#do('delete a schedule', true, () => {
      this.#db.prepare('DELETE FROM schedule_fires WHERE schedule = ?').run(name);
      return this.#db.prepare('DELETE FROM schedules WHERE name = ?').run(name).changes > 0;
    });
  }

  dueSchedules(now: number, limit: number): Promise<ScheduleRecord[]> {
    return this.#do('read due schedules', false, () =>
      this.#db
        .prepare<ScheduleRow>('SELECT * FROM schedules WHERE paused = 0 AND next_due <= ? ORDER BY next_due LIMIT ?')
        .all(now, limit)
        .map(scheduleOf),
    );
  }

  claimFires(name: string, expected: number, next: number | null, fires: readonly ScheduleFire[], now: number): Promise<boolean> {
    return this.#do('claim a due schedule', true, () => {
      const moved = this.#db
        .prepare('UPDATE schedules SET next_due = ?, updated_at = ? WHERE name = ? AND next_due = ? AND paused = 0')
        .run(next, now, name, expected).changes;
      if (moved === 0) return false;
      const insert = this.#db.prepare(
        'INSERT INTO schedule_fires (schedule, due_at, run_id, state, claimed_by, claimed_at) VALUES (?, ?, ?, ?, ?, ?)',
      );
      for (const fire of fires) insert.run(fire.schedule, fire.dueAt, fire.runId, fire.state, fire.claimedBy, fire.claimedAt);
      return true;
    });
  }

  setFireState(schedule: string, dueAt: number, from: FireState, to: FireState): Promise<boolean> {
    return this.#do(
      'update a schedule fire',
      true,
      () =>
        this.#db
          .prepare('UPDATE schedule_fires SET state = ? WHERE schedule = ? AND due_at = ? AND state = ?')
          .run(to, schedule, dueAt, from).changes > 0,
    );
  }

  listFires(schedule: string, limit: number): Promise<ScheduleFire[]> {
    return this.#do('list schedule fires', false, () =>
      this.#db
        .prepare<FireRow>('SELECT * FROM schedule_fires WHERE schedule = ? ORDER BY due_at DESC LIMIT ?')
        .all(schedule, limit)
        .map(fireOf),
    );
  }

  unfinishedFires(claimedBefore: number, limit: number): Promise<ScheduleFire[]> {
    return this.#do('list unfinished schedule fires', false, () =>
      this.#db
        .prepare<FireRow>(
          "SELECT * FROM schedule_fires WHERE (state = 'claimed' AND claimed_at < ?) OR state = 'waiting' ORDER BY due_at LIMIT ?",
        )
        .all(claimedBefore, limit)
        .map(fireOf),
    );
  }

  reclaimFire(fire: ScheduleFire, workerId: string, now: number): Promise<boolean> {
    return this.#do(
      'take over a schedule fire',
      true,
      () =>
        this.#db
          .prepare(
            "UPDATE schedule_fires SET claimed_by = ?, claimed_at = ? WHERE schedule = ? AND due_at = ? AND state = 'claimed' AND claimed_at = ?",
          )
          .run(workerId, now, fire.schedule, fire.dueAt, fire.claimedAt).changes > 0,
    );
  }

  putTrigger(name: string, spec: TriggerSpec, now: number): Promise<TriggerRecord> {
    return this.#do('save a trigger', true, () => {
      this.#db
        .prepare('INSERT INTO triggers (name, spec, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET spec = excluded.spec')
        .run(name, JSON.stringify(spec), now);
      const row = this.#db.prepare<{ name: string; spec: string; created_at: number }>('SELECT * FROM triggers WHERE name = ?').get(name)!;
      return { name: row.name, spec: JSON.parse(row.spec) as TriggerSpec, createdAt: row.created_at };
    });
  }

  getTrigger(name: string): Promise<TriggerRecord | undefined> {
    return this.#do('read a trigger', false, () => {
      const row = this.#db.prepare<{ name: string; spec: string; created_at: number }>('SELECT * FROM triggers WHERE name = ?').get(name);
      return row === undefined ? undefined : { name: row.name, spec: JSON.parse(row.spec) as TriggerSpec, createdAt: row.created_at };
    });
  }

  listTriggers(): Promise<TriggerRecord[]> {
    return this.#do('list triggers', false, () =>
      this.#db
        .prepare<{ name: string; spec: string; created_at: number }>('SELECT * FROM triggers ORDER BY name')
        .all()
        .map((row) => ({ name: row.name, spec: JSON.parse(row.spec) as TriggerSpec, createdAt: row.created_at })),
    );
  }

  deleteTrigger(name: string): Promise<boolean> {
    return this.#do('delete a trigger', true, () => {
      this.#db.prepare('DELETE FROM trigger_deliveries WHERE trigger_name = ?').run(name);
      return this.#db.prepare('DELETE FROM triggers WHERE name = ?').run(name).changes > 0;
    });
  }

  recordDelivery(trigger: string, deliveryId: string, runId: string, now: number): Promise<DeliveryRecord> {
    return this.#do('record a webhook delivery', true, () => {
      const inserted =
        this.#db
          .prepare(
            'INSERT INTO trigger_deliveries (trigger_name, delivery_id, run_id, received_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
          )
          .run(trigger, deliveryId, runId, now).changes > 0;
      if (inserted) return { runId, first: true, receivedAt: now };
      const row = this.#db
        .prepare<{ run_id: string; received_at: number }>(
          'SELECT run_id, received_at FROM trigger_deliveries WHERE trigger_name = ? AND delivery_id = ?',
        )
        .get(trigger, deliveryId)!;
      return { runId: row.run_id, first: false, receivedAt: row.received_at };
    });
  }
}
