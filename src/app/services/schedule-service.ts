/**
 * Schedules (docs/schedules.md): adding, listing, pausing, resuming and removing them, the
 * `[schedules.<name>]` tables of settings synced into the store, and the tick a worker runs
 * every second. A tick claims each due schedule by moving its next due time with
 * compare-and-set, recording in the same transaction every due time it fires with the id of
 * the run it will make (store: schedule-store.ts): across every worker on every host, one
 * due time makes at most one run. A worker that dies between the claim and the run leaves a
 * `claimed` fire that another worker's tick completes a minute later, with the same run id.
 */
import { resolve } from 'node:path';
import { WeftError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import type { JsonObject } from '../../runs/model/json.js';
import { isTerminal } from '../../runs/model/run-status.js';
import { realPathInRunDir } from '../../runs/run-dir-path.js';
import { resolveInputs } from '../../runs/run-inputs.js';
import { nextDueAfter, parseCron, planTick } from '../../runs/schedule/schedule-plan.js';
import {
  CATCH_UP_POLICIES,
  OVERLAP_POLICIES,
  type CatchUpPolicy,
  type OverlapPolicy,
  type ScheduleFire,
  type ScheduleRecord,
  type ScheduleSpec,
  type ScheduleStore,
} from '../../runs/store/schedule-store.js';
import { loadWorkflow } from '../../runs/workflow/index.js';
import type { RunService } from './run-service.js';

/** A `claimed` fire older than this is taken to belong to a dead worker and completed by another. */
export const STALE_CLAIM_MS = 60_000;
/** How often workers tick (`weft worker`, `weft serve`). */
export const TICK_MS = 1_000;
/** Schedules claimed per tick at most; the rest wait for the next tick. */
const DUE_PER_TICK = 200;
/** Label keys on the runs a schedule makes. */
export const SCHEDULE_LABEL = 'weft.schedule';
export const DUE_LABEL = 'weft.due';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export interface ScheduleRequest {
  name: string;
  workflow: string;
  cwd: string;
  cron: string;
  timezone?: string;
  inputs?: Record<string, unknown>;
  catchUp?: string;
  overlap?: string;
  autoApprove?: boolean;
  source?: ScheduleSpec['source'];
  /** Replace a schedule of that name instead of refusing. */
  replace?: boolean;
  /** The workflow file must lie inside `cwd` by real path (the HTTP API sets it). */
  workflowInsideCwd?: boolean;
}

export interface ScheduleView extends ScheduleRecord {
  /** The last due times fired, newest first, with their runs. */
  recent: ScheduleFire[];
}

export interface TickReport {
  /** Runs created by this tick. */
  created: string[];
  /** Due times skipped (overlap `skip`, or missed). */
  skipped: number;
}

export interface ScheduleServiceDeps {
  store: ScheduleStore;
  /** Creates the runs; its `wakeRunners` should do nothing in a worker, whose own claim loop takes them. */
  runs: () => Promise<RunService>;
  clock: () => number;
  logger?: Logger;
  /** Who ticks (recorded on the fires it claims). */
  workerId?: string;
}

export function checkScheduleName(name: string): string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new WeftError(
      'SCHEDULE_INVALID',
      `Schedule name '${String(name).slice(0, 80)}' must start with a letter or digit and use only letters, digits, '.', '_', '-' (at most 63 characters).`,
      { data: { field: 'name', value: String(name).slice(0, 80) } },
    );
  }
  return name;
}

function policy<T extends string>(value: string | undefined, allowed: readonly T[], field: string, fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value))
    throw new WeftError('SCHEDULE_INVALID', `${field} must be one of ${allowed.join(', ')}, not '${value}'.`, { data: { field, value } });
  return value as T;
}

export class ScheduleService {
  readonly #deps: ScheduleServiceDeps;
  readonly #logger: Logger;
  readonly #workerId: string;

  constructor(deps: ScheduleServiceDeps) {
    this.#deps = deps;
    this.#logger = deps.logger ?? silentLogger;
    this.#workerId = deps.workerId ?? `scheduler-${newId()}`;
  }

  /** Checks the request (name, cron, zone, policies, workflow file and its inputs) and stores it; the first due time is the next one after now. */
  async add(request: ScheduleRequest): Promise<ScheduleRecord> {
    const name = checkScheduleName(request.name);
    const spec = await this.#spec(request);
    if (request.replace !== true && (await this.#deps.store.getSchedule(name)) !== undefined) {
      throw new WeftError(
        'SCHEDULE_EXISTS',
        `A schedule named '${name}' exists already; remove it first ('weft schedule rm ${name}') or pick another name.`,
        { data: { schedule: name } },
      );
    }
    const now = this.#deps.clock();
    return this.#deps.store.putSchedule(name, spec, nextDueAfter(parseCron(spec, `schedule '${name}'`), now), now);
  }

  async #spec(request: ScheduleRequest): Promise<ScheduleSpec> {
    const where = `schedule '${request.name}'`;
    const cron = parseCron({ cron: request.cron, ...(request.timezone === undefined ? {} : { timezone: request.timezone }) }, where);
    if (nextDueAfter(cron, this.#deps.clock()) === null)
      throw new WeftError('SCHEDULE_INVALID', `${where}: the cron expression "${request.cron}" has no time left to run.`, {
        data: { field: 'cron', value: request.cron },
      });
    const catchUp = policy<CatchUpPolicy>(request.catchUp, CATCH_UP_POLICIES, 'catch_up', 'none');
    const overlap = policy<OverlapPolicy>(request.overlap, OVERLAP_POLICIES, 'overlap', 'skip');
    const cwd = resolve(request.cwd);
    const workflow = await loadWorkflow(
      request.workflowInsideCwd === true ? await realPathInRunDir(cwd, request.workflow, 'workflow') : resolve(cwd, request.workflow),
    );
    const inputs = resolveInputs(workflow, request.inputs ?? {}) as JsonObject;
    return {
      workflow: request.workflow,
      cwd,
      cron: request.cron,
      ...(request.timezone === undefined ? {} : { timezone: request.timezone }),
      inputs,
      catchUp,
      overlap,
      ...(request.autoApprove === undefined ? {} : { autoApprove: request.autoApprove }),
      source: request.source ?? 'cli',
    };
  }

  async list(): Promise<ScheduleRecord[]> {
    return this.#deps.store.listSchedules();
  }

  async get(name: string): Promise<ScheduleView> {
    const schedule = await this.#deps.store.getSchedule(name);
    if (schedule === undefined) throw this.#notFound(name);
    return { ...schedule, recent: await this.#deps.store.listFires(name, 10) };
  }

  async pause(name: string): Promise<ScheduleRecord> {
    const schedule = await this.#deps.store.getSchedule(name);
    if (schedule === undefined) throw this.#notFound(name);
    return (await this.#deps.store.setPaused(name, true, schedule.nextDue, this.#deps.clock())) ?? schedule;
  }

  /** Resumes from now: times that passed while paused are not caught up. */
  async resume(name: string): Promise<ScheduleRecord> {
    const schedule = await this.#deps.store.getSchedule(name);
    if (schedule === undefined) throw this.#notFound(name);
    const now = this.#deps.clock();
    return (
      (await this.#deps.store.setPaused(name, false, nextDueAfter(parseCron(schedule.spec, `schedule '${name}'`), now), now)) ?? schedule
    );
  }

  async remove(name: string): Promise<void> {
    if (!(await this.#deps.store.deleteSchedule(name))) throw this.#notFound(name);
  }

  /**
   * Makes the store's `settings` schedules match `[schedules.*]`: new ones added, changed ones
   * replaced (their next due time recomputed), ones no longer in settings removed. Schedules
   * added by the CLI or the API are left alone, unless settings define the same name (settings win).
   */
  async syncFromSettings(wanted: readonly ScheduleRequest[]): Promise<{ added: string[]; changed: string[]; removed: string[] }> {
    const existing = new Map((await this.#deps.store.listSchedules()).map((schedule) => [schedule.name, schedule]));
    const report = { added: [] as string[], changed: [] as string[], removed: [] as string[] };
    const names = new Set<string>();
    for (const request of wanted) {
      names.add(request.name);
      const spec = await this.#spec({ ...request, source: 'settings' });
      const before = existing.get(request.name);
      if (before !== undefined && JSON.stringify(before.spec) === JSON.stringify(spec)) continue;
      const now = this.#deps.clock();
      await this.#deps.store.putSchedule(request.name, spec, nextDueAfter(parseCron(spec), now), now);
      (before === undefined ? report.added : report.changed).push(request.name);
    }
    for (const [name, schedule] of existing) {
      if (schedule.spec.source === 'settings' && !names.has(name)) {
        await this.#deps.store.deleteSchedule(name);
        report.removed.push(name);
      }
    }
    return report;
  }

  /** One tick at the clock's now: claims the due schedules, creates their runs, and finishes fires left unfinished. */
  async tick(): Promise<TickReport> {
    const now = this.#deps.clock();
    const report: TickReport = { created: [], skipped: 0 };
    for (const schedule of await this.#deps.store.dueSchedules(now, DUE_PER_TICK)) {
      if (schedule.nextDue === null) continue;
      let plan;
      try {
        plan = planTick(parseCron(schedule.spec, `schedule '${schedule.name}'`), schedule.spec.catchUp, schedule.nextDue, now);
      } catch (error) {
        this.#logger.warn(`Schedule '${schedule.name}' cannot be planned: ${(error as Error).message}`);
        continue;
      }
      const fires: ScheduleFire[] = plan.fire.map((dueAt) => ({
        schedule: schedule.name,
        dueAt,
        runId: newId(),
        state: 'claimed',
        claimedBy: this.#workerId,
        claimedAt: now,
      }));
      if (!(await this.#deps.store.claimFires(schedule.name, schedule.nextDue, plan.next, fires, now))) continue;
      if (plan.missed > 0)
        this.#logger.info(
          `Schedule '${schedule.name}': ${plan.missed} due time(s) missed while no worker ticked (catch_up = "${schedule.spec.catchUp}").`,
        );
      report.skipped += plan.missed;
      for (const fire of fires) await this.#complete(schedule, fire, report);
    }
    await this.#finishLeftovers(now, report);
    return report;
  }

  async #finishLeftovers(now: number, report: TickReport): Promise<void> {
    for (const fire of await this.#deps.store.unfinishedFires(now - STALE_CLAIM_MS, 50)) {
      const schedule = await this.#deps.store.getSchedule(fire.schedule);
      if (schedule === undefined) continue;
      if (fire.state === 'waiting') {
        if (await this.#previousActive(fire)) continue;
        if (!(await this.#deps.store.setFireState(fire.schedule, fire.dueAt, 'waiting', 'created'))) continue;
        await (
          await this.#deps.runs()
        )
          .start(fire.runId)
          .catch((error: unknown) =>
            this.#logger.warn(`Schedule '${fire.schedule}': could not start queued run ${fire.runId}: ${(error as Error).message}`),
          );
        continue;
      }
      if (await this.#deps.store.reclaimFire(fire, this.#workerId, now))
        await this.#complete(schedule, { ...fire, claimedBy: this.#workerId, claimedAt: now }, report);
    }
  }

  /** The run of the schedule's latest fire before this one, when it has not ended. */
  async #previousActive(fire: ScheduleFire): Promise<string | undefined> {
    const earlier = (await this.#deps.store.listFires(fire.schedule, 20)).find(
      (other) => other.dueAt < fire.dueAt && (other.state === 'created' || other.state === 'waiting'),
    );
    if (earlier === undefined) return undefined;
    const run = await (await this.#deps.runs()).get(earlier.runId).catch(() => undefined);
    return run !== undefined && !isTerminal(run.status) ? run.id : undefined;
  }

  async #complete(schedule: ScheduleRecord, fire: ScheduleFire, report: TickReport): Promise<void> {
    const runs = await this.#deps.runs();
    const { store } = this.#deps;
    // A fire taken over from a dead worker may have its run already.
    if ((await runs.get(fire.runId).catch(() => undefined)) !== undefined) {
      await store.setFireState(fire.schedule, fire.dueAt, 'claimed', 'created');
      return;
    }
    const previous = await this.#previousActive(fire);
    const overlap = schedule.spec.overlap;
    if (previous !== undefined && overlap === 'skip') {
      await store.setFireState(fire.schedule, fire.dueAt, 'claimed', 'skipped');
      report.skipped += 1;
      this.#logger.info(
        `Schedule '${schedule.name}': skipped ${new Date(fire.dueAt).toISOString()}, run ${previous} still going (overlap = "skip").`,
      );
      return;
    }
    if (previous !== undefined && overlap === 'cancel-previous') {
      await runs
        .cancel(
          previous,
          `schedule '${schedule.name}': the run due at ${new Date(fire.dueAt).toISOString()} replaces it (overlap = "cancel-previous")`,
        )
        .catch((error: unknown) =>
          this.#logger.warn(`Schedule '${schedule.name}': could not cancel run ${previous}: ${(error as Error).message}`),
        );
    }
    const waits = previous !== undefined && overlap === 'queue';
    try {
      await runs.create({
        id: fire.runId,
        workflow: schedule.spec.workflow,
        cwd: schedule.spec.cwd,
        inputs: schedule.spec.inputs,
        labels: { [SCHEDULE_LABEL]: schedule.name, [DUE_LABEL]: new Date(fire.dueAt).toISOString() },
        ...(schedule.spec.autoApprove === undefined ? {} : { autoApprove: schedule.spec.autoApprove }),
        ...(waits ? { start: false } : {}),
      });
    } catch (error) {
      await store.setFireState(fire.schedule, fire.dueAt, 'claimed', 'skipped');
      report.skipped += 1;
      this.#logger.warn(
        `Schedule '${schedule.name}': could not create the run due at ${new Date(fire.dueAt).toISOString()}: ${(error as Error).message}`,
      );
      return;
    }
    await store.setFireState(fire.schedule, fire.dueAt, 'claimed', waits ? 'waiting' : 'created');
    report.created.push(fire.runId);
  }

  #notFound(name: string): WeftError {
    return new WeftError('SCHEDULE_NOT_FOUND', `No schedule named '${name}'; list them with 'weft schedule list'.`, {
      data: { schedule: name },
    });
  }
}
