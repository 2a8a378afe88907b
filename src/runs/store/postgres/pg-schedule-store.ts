/**
 * Schedules and webhook triggers in the PostgreSQL store's database (see schedule-store.ts
 * for the rules). A claim is `UPDATE … WHERE next_due = $expected` in a transaction with the
 * fires' inserts: of two workers on any hosts, the second's update waits for the first's
 * row lock, then finds the due time moved and claims nothing.
 */
import type pg from 'pg';
import type { PgStatements } from './pg-statements.js';
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
  next_due: string | number | null;
  created_at: string | number;
  updated_at: string | number;
}

interface FireRow {
  schedule: string;
  due_at: string | number;
  run_id: string;
  state: FireState;
  claimed_by: string;
  claimed_at: string | number;
}

interface TriggerRow {
  name: string;
  spec: string;
  created_at: string | number;
}

function scheduleOf(row: ScheduleRow): ScheduleRecord {
  return {
    name: row.name,
    spec: JSON.parse(row.spec) as ScheduleSpec,
    paused: Number(row.paused) !== 0,
    nextDue: row.next_due === null ? null : Number(row.next_due),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function fireOf(row: FireRow): ScheduleFire {
  return {
    schedule: row.schedule,
    dueAt: Number(row.due_at),
    runId: row.run_id,
    state: row.state,
    claimedBy: row.claimed_by,
    claimedAt: Number(row.claimed_at),
  };
}

function triggerOf(row: TriggerRow): TriggerRecord {
  return { name: row.name, spec: JSON.parse(row.spec) as TriggerSpec, createdAt: Number(row.created_at) };
}

export class PgScheduleStore implements ScheduleStore {
  readonly #sql: PgStatements;

  constructor(sql: PgStatements) {
    this.#sql = sql;
  }

  async putSchedule(name: string, spec: ScheduleSpec, nextDue: number | null, now: number): Promise<ScheduleRecord> {
    const [row] = await this.#sql.rows<ScheduleRow>(
      'save a schedule',
      'INSERT INTO schedules (name, spec, paused, next_due, created_at, updated_at) VALUES ($1, $2, 0, $3, $4, $4) ON CONFLICT (name) DO UPDATE SET spec = excluded.spec, next_due = excluded.next_due, updated_at = excluded.updated_at RETURNING *',
      [name, JSON.stringify(spec), nextDue, now],
    );
    return scheduleOf(row!);
  }

  async getSchedule(name: string): Promise<ScheduleRecord | undefined> {
    const [row] = await this.#sql.rows<ScheduleRow>('read a schedule', 'SELECT * FROM schedules WHERE name = $1', [name]);
    return row === undefined ? undefined : scheduleOf(row);
  }

  async listSchedules(): Promise<ScheduleRecord[]> {
    return (await this.#sql.rows<ScheduleRow>('list schedules', 'SELECT * FROM schedules ORDER BY name', [])).map(scheduleOf);
  }

  async setPaused(name: string, paused: boolean, nextDue: number | null, now: number): Promise<ScheduleRecord | undefined> {
    const [row] = await this.#sql.rows<ScheduleRow>(
      'pause or resume a schedule',
      'UPDATE schedules SET paused = $1, next_due = $2, updated_at = $3 WHERE name = $4 RETURNING *',
      [paused ? 1 : 0, nextDue, now, name],
    );
    return row === undefined ? undefined : scheduleOf(row);
  }

  async deleteSchedule(name: string): Promise<boolean> {
    let deleted = false;
    await this.#sql.transaction('delete a schedule', async (query) => {
      await query('DELETE FROM schedule_fires WHERE schedule = $1', [name]);
      deleted = ((await query('DELETE FROM schedules WHERE name = $1', [name])) as pg.QueryResult).rowCount !== 0;
    });
    return deleted;
  }

  async dueSchedules(now: number, limit: number): Promise<ScheduleRecord[]> {
    return (
      await this.#sql.rows<ScheduleRow>(
        'read due schedules',
        'SELECT * FROM schedules WHERE paused = 0 AND next_due <= $1 ORDER BY next_due LIMIT $2',
        [now, limit],
      )
    ).map(scheduleOf);
  }

  async claimFires(name: string, expected: number, next: number | null, fires: readonly ScheduleFire[], now: number): Promise<boolean> {
    let claimed = false;
    await this.#sql.transaction('claim a due schedule', async (query) => {
      const moved = (await query('UPDATE schedules SET next_due = $1, updated_at = $2 WHERE name = $3 AND next_due = $4 AND paused = 0', [
        next,
        now,
        name,
        expected,
      ])) as pg.QueryResult;
      if (moved.rowCount === 0) return;
      if (fires.length > 0) {
        await query(
          'INSERT INTO schedule_fires (schedule, due_at, run_id, state, claimed_by, claimed_at) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[])',
          [
            fires.map((fire) => fire.schedule),
            fires.map((fire) => fire.dueAt),
            fires.map((fire) => fire.runId),
            fires.map((fire) => fire.state),
            fires.map((fire) => fire.claimedBy),
            fires.map((fire) => fire.claimedAt),
          ],
        );
      }
      claimed = true;
    });
    return claimed;
  }

  async setFireState(schedule: string, dueAt: number, from: FireState, to: FireState): Promise<boolean> {
    return (
      (await this.#sql.count(
        'update a schedule fire',
        'UPDATE schedule_fires SET state = $1 WHERE schedule = $2 AND due_at = $3 AND state = $4',
        [to, schedule, dueAt, from],
      )) > 0
    );
  }

  async listFires(schedule: string, limit: number): Promise<ScheduleFire[]> {
    return (
      await this.#sql.rows<FireRow>(
        'list schedule fires',
        'SELECT * FROM schedule_fires WHERE schedule = $1 ORDER BY due_at DESC LIMIT $2',
        [schedule, limit],
      )
    ).map(fireOf);
  }

  async unfinishedFires(claimedBefore: number, limit: number): Promise<ScheduleFire[]> {
    return (
      await this.#sql.rows<FireRow>(
        'list unfinished schedule fires',
        "SELECT * FROM schedule_fires WHERE (state = 'claimed' AND claimed_at < $1) OR state = 'waiting' ORDER BY due_at LIMIT $2",
        [claimedBefore, limit],
      )
    ).map(fireOf);
  }

  async reclaimFire(fire: ScheduleFire, workerId: string, now: number): Promise<boolean> {
    return (
      (await this.#sql.count(
        'take over a schedule fire',
        "UPDATE schedule_fires SET claimed_by = $1, claimed_at = $2 WHERE schedule = $3 AND due_at = $4 AND state = 'claimed' AND claimed_at = $5",
        [workerId, now, fire.schedule, fire.dueAt, fire.claimedAt],
      )) > 0
    );
  }

  async putTrigger(name: string, spec: TriggerSpec, now: number): Promise<TriggerRecord> {
    const [row] = await this.#sql.rows<TriggerRow>(
      'save a trigger',
      'INSERT INTO triggers (name, spec, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET spec = excluded.spec RETURNING *',
      [name, JSON.stringify(spec), now],
    );
    return triggerOf(row!);
  }

  async getTrigger(name: string): Promise<TriggerRecord | undefined> {
    const [row] = await this.#sql.rows<TriggerRow>('read a trigger', 'SELECT * FROM triggers WHERE name = $1', [name]);
    return row === undefined ? undefined : triggerOf(row);
  }

  async listTriggers(): Promise<TriggerRecord[]> {
    return (await this.#sql.rows<TriggerRow>('list triggers', 'SELECT * FROM triggers ORDER BY name', [])).map(triggerOf);
  }

  async deleteTrigger(name: string): Promise<boolean> {
    let deleted = false;
    await this.#sql.transaction('delete a trigger', async (query) => {
      await query('DELETE FROM trigger_deliveries WHERE trigger_name = $1', [name]);
      deleted = ((await query('DELETE FROM triggers WHERE name = $1', [name])) as pg.QueryResult).rowCount !== 0;
    });
    return deleted;
  }

  async recordDelivery(trigger: string, deliveryId: string, runId: string, now: number): Promise<DeliveryRecord> {
    const inserted = await this.#sql.count(
      'record a webhook delivery',
      'INSERT INTO trigger_deliveries (trigger_name, delivery_id, run_id, received_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
      [trigger, deliveryId, runId, now],
    );
    if (inserted > 0) return { runId, first: true, receivedAt: now };
    const [row] = await this.#sql.rows<{ run_id: string; received_at: string | number }>(
      'read a webhook delivery',
      'SELECT run_id, received_at FROM trigger_deliveries WHERE trigger_name = $1 AND delivery_id = $2',
      [trigger, deliveryId],
    );
    return { runId: row!.run_id, first: false, receivedAt: Number(row!.received_at) };
  }
}
