/**
 * Schedules and triggers as HTTP clients see them (snake_case, ISO times). A trigger's
 * view names the environment variable of its secret, never the secret.
 */
import * as z from 'zod';
import type { ScheduleFire, ScheduleRecord, TriggerRecord } from '../../runs/store/schedule-store.js';

const iso = (time: number): string => new Date(time).toISOString();

export const scheduleFireSchema = z.object({
  due_at: z.string().describe('ISO 8601 due time'),
  state: z
    .enum(['claimed', 'created', 'waiting', 'skipped'])
    .describe('created: the run exists; waiting: created, waiting for the previous run (overlap queue); skipped: no run'),
  run_id: z.string().nullable().describe('null when skipped'),
});

export const scheduleSchema = z.object({
  name: z.string(),
  workflow: z.string(),
  cwd: z.string(),
  cron: z.string(),
  timezone: z.string().nullable(),
  inputs: z.record(z.string(), z.unknown()),
  catch_up: z.enum(['none', 'last', 'all']),
  overlap: z.enum(['skip', 'queue', 'cancel-previous']),
  auto_approve: z.boolean().nullable().describe("null: as the workflow's auto_approve"),
  source: z.enum(['cli', 'api', 'settings']),
  paused: z.boolean(),
  next_due: z.string().nullable().describe('ISO 8601; made only while a worker ticks (weft worker, weft serve)'),
  created_at: z.string(),
  updated_at: z.string(),
  recent: z.array(scheduleFireSchema).optional().describe('The last due times, newest first (GET /schedules/{name} only)'),
});
export type ScheduleView = z.infer<typeof scheduleSchema>;

export function scheduleFireView(fire: ScheduleFire): z.infer<typeof scheduleFireSchema> {
  return { due_at: iso(fire.dueAt), state: fire.state, run_id: fire.state === 'skipped' ? null : fire.runId };
}

export function scheduleView(schedule: ScheduleRecord, recent?: readonly ScheduleFire[]): ScheduleView {
  const spec = schedule.spec;
  return {
    name: schedule.name,
    workflow: spec.workflow,
    cwd: spec.cwd,
    cron: spec.cron,
    timezone: spec.timezone ?? null,
    inputs: spec.inputs,
    catch_up: spec.catchUp,
    overlap: spec.overlap,
    auto_approve: spec.autoApprove ?? null,
    source: spec.source,
    paused: schedule.paused,
    next_due: schedule.nextDue === null ? null : iso(schedule.nextDue),
    created_at: iso(schedule.createdAt),
    updated_at: iso(schedule.updatedAt),
    ...(recent === undefined ? {} : { recent: recent.map(scheduleFireView) }),
  };
}

export const triggerSchema = z.object({
  name: z.string(),
  workflow: z.string(),
  secret_env: z.string().describe("The server's environment variable holding the HMAC secret"),
  input_map: z.record(z.string(), z.string()),
  created_at: z.string(),
});

export function triggerView(trigger: TriggerRecord): z.infer<typeof triggerSchema> {
  return {
    name: trigger.name,
    workflow: trigger.spec.workflow,
    secret_env: trigger.spec.secretEnv,
    input_map: trigger.spec.inputMap,
    created_at: iso(trigger.createdAt),
  };
}
