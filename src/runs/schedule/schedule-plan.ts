/**
 * When a schedule is due, and what one tick does about it: cron expressions are parsed and
 * stepped by croner (five fields, or six with seconds first), in the schedule's time zone;
 * `planTick` decides which due times between the stored next due time and now get a run,
 * following the catch-up policy, and the next due time after now. Pure: the clock is an
 * argument, so the policies are tested without waiting.
 */
import { Cron } from 'croner';
import { WeftError } from '../../core/errors.js';
import type { CatchUpPolicy } from '../store/schedule-store.js';

/** A due time this close to now is the current one, not a missed one (catch_up = "none" still fires it). */
export const ON_TIME_MS = 60_000;
/** catch_up = "all" fires at most this many missed times at once (the newest ones). */
export const MAX_CATCH_UP = 1000;

export interface CronSpec {
  cron: string;
  timezone?: string;
}

/** Refuses a zone `Intl` does not know, naming it. */
export function checkTimezone(timezone: string, where: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw new WeftError(
      'SCHEDULE_INVALID',
      `${where}: unknown time zone '${timezone}'; use an IANA name such as 'Europe/Paris' or 'UTC'.`,
      { data: { field: 'timezone', value: timezone } },
    );
  }
}

/** The parsed expression; a bad expression or zone is a SCHEDULE_INVALID naming `where`. */
export function parseCron(spec: CronSpec, where = 'schedule'): Cron {
  if (typeof spec.cron !== 'string' || spec.cron.trim() === '')
    throw new WeftError('SCHEDULE_INVALID', `${where}: cron must be an expression such as "0 3 * * *".`, {
      data: { field: 'cron', value: String(spec.cron) },
    });
  if (spec.timezone !== undefined) checkTimezone(spec.timezone, where);
  try {
    return new Cron(spec.cron, { paused: true, mode: '5-or-6-parts', ...(spec.timezone === undefined ? {} : { timezone: spec.timezone }) });
  } catch (error) {
    throw new WeftError(
      'SCHEDULE_INVALID',
      `${where}: invalid cron expression "${spec.cron}" (${(error as Error).message}). Use five fields (minute hour day month weekday), or six with seconds first.`,
      {
        data: { field: 'cron', value: spec.cron },
      },
    );
  }
}

/** The first due time strictly after `after` (epoch ms), or null when the expression has none left. */
export function nextDueAfter(cron: Cron, after: number): number | null {
  return cron.nextRun(new Date(after))?.getTime() ?? null;
}

export interface TickPlan {
  /** Due times that get a run, oldest first. */
  fire: number[];
  /** Due times passed over (missed while no worker ticked), how many. */
  missed: number;
  /** What the schedule's next due time becomes. */
  next: number | null;
}

/** What a tick at `now` does for a schedule whose stored next due time is `nextDue` (≤ now). */
export function planTick(cron: Cron, catchUp: CatchUpPolicy, nextDue: number, now: number): TickPlan {
  const next = nextDueAfter(cron, now);
  if (nextDue > now) return { fire: [], missed: 0, next: nextDue };
  const second = nextDueAfter(cron, nextDue);
  let due: number[];
  // previousRuns leaves out a time equal to its reference but keeps one earlier in the same
  // second: `now + 1` makes a due time exactly at now count as passed.
  if (second === null || second > now) due = [nextDue];
  else if (catchUp === 'all') {
    due = cron
      .previousRuns(MAX_CATCH_UP, new Date(now + 1))
      .map((date) => date.getTime())
      .filter((time) => time >= nextDue && time <= now)
      .reverse();
    if (due[0] !== nextDue && due.length < MAX_CATCH_UP) due.unshift(nextDue);
  } else {
    const latest = cron.previousRuns(1, new Date(now + 1))[0]?.getTime();
    due = latest === undefined || latest < nextDue || latest > now ? [nextDue] : latest === nextDue ? [nextDue] : [nextDue, latest];
  }
  const latest = due[due.length - 1]!;
  const total =
    catchUp === 'all' ? Math.max(due.length, countBetween(cron, nextDue, now, due.length)) : countBetween(cron, nextDue, now, 2);
  switch (catchUp) {
    case 'all':
      return { fire: due, missed: 0, next };
    case 'last':
      return { fire: [latest], missed: Math.max(0, total - 1), next };
    case 'none': {
      const onTime = now - latest <= ON_TIME_MS;
      return { fire: onTime ? [latest] : [], missed: onTime ? Math.max(0, total - 1) : total, next };
    }
  }
}

/** How many due times lie in [from, to]: exact up to `atLeast`, else the count of the `due` list (an estimate is enough for a message). */
function countBetween(cron: Cron, from: number, to: number, atLeast: number): number {
  let count = 0;
  let at: number | null = from;
  while (at !== null && at <= to && count < Math.max(atLeast, MAX_CATCH_UP)) {
    count += 1;
    at = nextDueAfter(cron, at);
  }
  return count;
}
