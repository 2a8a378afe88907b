/**
 * Storage for schedules and webhook triggers, kept in the run store's own database so every
 * worker on every host sees the same ones (migration 6 of both stores). Exactly-once firing
 * rests on two rules a store keeps: a schedule's next due time moves only by compare-and-set
 * (`claimFires`), in the same transaction that records the due times fired, keyed by
 * (schedule, due time); and a delivery id is a key, so a retried webhook finds its run.
 */
import type { JsonObject } from '../model/json.js';

export const CATCH_UP_POLICIES = ['none', 'last', 'all'] as const;
export type CatchUpPolicy = (typeof CATCH_UP_POLICIES)[number];
export const OVERLAP_POLICIES = ['skip', 'queue', 'cancel-previous'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

export interface ScheduleSpec {
  /** The workflow file, as `weft run` takes it, relative to `cwd`. */
  workflow: string;
  /** Absolute: where the runs are created. */
  cwd: string;
  /** Five fields, or six with seconds first (croner). */
  cron: string;
  /** IANA zone; default the worker's. */
  timezone?: string;
  inputs: JsonObject;
  catchUp: CatchUpPolicy;
  overlap: OverlapPolicy;
  /** Start runs without `weft approve` (default: the workflow's `auto_approve`). */
  autoApprove?: boolean;
  /** Who made it: `settings` schedules are replaced on every sync from `[schedules.*]`. */
  source: 'cli' | 'api' | 'settings';
}

export interface ScheduleRecord {
  name: string;
  spec: ScheduleSpec;
  paused: boolean;
  /** Epoch ms; null when the expression has no time left. */
  nextDue: number | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * `claimed`: a worker owns the due time and is creating its run (a claim older than a minute
 * is taken over); `created`: the run exists; `waiting`: created but not started, behind the
 * previous run (overlap `queue`); `skipped`: no run (overlap `skip`, or a missed time).
 */
export type FireState = 'claimed' | 'created' | 'waiting' | 'skipped';

export interface ScheduleFire {
  schedule: string;
  dueAt: number;
  /** Chosen at claim time, so whoever completes the fire creates the same run (the runs key refuses a second). */
  runId: string;
  state: FireState;
  claimedBy: string;
  claimedAt: number;
}

export interface TriggerSpec {
  workflow: string;
  cwd: string;
  /** The environment variable of `weft serve` that holds the HMAC secret; the secret itself is never stored. */
  secretEnv: string;
  /** Input name → `$.dotted.path` into the body (or a literal). */
  inputMap: Record<string, string>;
  autoApprove?: boolean;
}

export interface TriggerRecord {
  name: string;
  spec: TriggerSpec;
  createdAt: number;
}

export interface DeliveryRecord {
  runId: string;
  /** False when the delivery id was recorded before: then `runId` and `receivedAt` are the first delivery's. */
  first: boolean;
  receivedAt: number;
}

export interface ScheduleStore {
  /** Creates or replaces the schedule's spec and next due time; `paused` stays as it was (false when new). */
  putSchedule(name: string, spec: ScheduleSpec, nextDue: number | null, now: number): Promise<ScheduleRecord>;
  getSchedule(name: string): Promise<ScheduleRecord | undefined>;
  listSchedules(): Promise<ScheduleRecord[]>;
  /** Undefined when there is no such schedule. */
  setPaused(name: string, paused: boolean, nextDue: number | null, now: number): Promise<ScheduleRecord | undefined>;
  /** Deletes the schedule and its fires; false when there was none. */
  deleteSchedule(name: string): Promise<boolean>;
  /** Unpaused schedules due at `now`, soonest first. */
  dueSchedules(now: number, limit: number): Promise<ScheduleRecord[]>;
  /**
   * Moves the schedule's next due time from `expected` to `next` and records `fires`, in one
   * transaction; false (and nothing written) when the due time had moved already — another
   * worker claimed it.
   */
  claimFires(name: string, expected: number, next: number | null, fires: readonly ScheduleFire[], now: number): Promise<boolean>;
  /** Moves a fire from `from` to `to`; false when it was not in `from`. */
  setFireState(schedule: string, dueAt: number, from: FireState, to: FireState): Promise<boolean>;
  /** The schedule's fires, newest due time first. */
  listFires(schedule: string, limit: number): Promise<ScheduleFire[]>;
  /** Fires in `claimed` claimed before `claimedBefore`, and every `waiting` fire: work a tick may have to finish. */
  unfinishedFires(claimedBefore: number, limit: number): Promise<ScheduleFire[]>;
  /** Takes over a stale `claimed` fire (compare-and-set on its claim time); false when another worker did. */
  reclaimFire(fire: ScheduleFire, workerId: string, now: number): Promise<boolean>;
  putTrigger(name: string, spec: TriggerSpec, now: number): Promise<TriggerRecord>;
  getTrigger(name: string): Promise<TriggerRecord | undefined>;
  listTriggers(): Promise<TriggerRecord[]>;
  /** Deletes the trigger and its deliveries; false when there was none. */
  deleteTrigger(name: string): Promise<boolean>;
  /** Records a delivery with the run it makes; when the id was delivered before, the first delivery's run id and `first: false`. */
  recordDelivery(trigger: string, deliveryId: string, runId: string, now: number): Promise<DeliveryRecord>;
}
