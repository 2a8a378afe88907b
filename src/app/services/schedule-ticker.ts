/**
 * The loop a long-lived worker (`weft worker`, `weft serve`'s worker) runs beside its claim
 * loop: a schedule tick just after every whole second until the signal aborts. A failing
 * tick (the database away) is logged and the loop carries on; the due times it could not
 * claim are still due at the next tick.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../core/logger.js';
import type { Settings } from '../../core/settings/settings.js';
import { TICK_MS, type ScheduleService } from './schedule-service.js';
import { settingsSchedules } from './schedule-settings.js';

/** Past the whole second, so a due time stamped at it is not missed by clock skew between hosts. */
const TICK_OFFSET_MS = 15;

/**
 * Stores the `[schedules.*]` of settings (a problem is a warning: the worker still executes
 * runs), then ticks until `signal` aborts.
 */
export async function runScheduleTicks(
  schedules: ScheduleService,
  signal: AbortSignal,
  logger: Logger,
  settings?: { settings: Pick<Settings, 'userDocument' | 'projectDocument'>; workspaceRoot: string },
  clock: () => number = Date.now,
): Promise<void> {
  if (settings !== undefined) {
    try {
      const synced = await schedules.syncFromSettings(settingsSchedules(settings.settings, settings.workspaceRoot));
      const changed = [
        ...synced.added.map((name) => `+${name}`),
        ...synced.changed.map((name) => `~${name}`),
        ...synced.removed.map((name) => `-${name}`),
      ];
      if (changed.length > 0) logger.info(`Schedules from settings: ${changed.join(' ')}.`);
    } catch (error) {
      logger.warn(`The [schedules] of settings were not applied: ${(error as Error).message}`);
    }
  }
  let failing = false;
  while (!signal.aborted) {
    try {
      await schedules.tick();
      if (failing) logger.info('Schedules tick again.');
      failing = false;
    } catch (error) {
      if (!failing) logger.warn(`Schedule tick failed (${(error as Error).message}); retrying every second.`);
      failing = true;
    }
    const now = clock();
    await delay(TICK_MS - (now % TICK_MS) + TICK_OFFSET_MS, undefined, { signal }).catch(() => undefined);
  }
}
