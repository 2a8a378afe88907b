/**
 * The loop a long-lived worker (`weft worker`, `weft serve`'s worker) runs beside its claim
 * loop: a schedule tick just after every whole second until the signal aborts. A failing
 * tick (the database away) is logged and the loop carries on; the due times it could not
 * claim are still due at the next tick.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../core/logger.js';
import { TICK_MS, type ScheduleService } from './schedule-service.js';

/** Past the whole second, so a due time stamped at it is not missed by clock skew between hosts. */
const TICK_OFFSET_MS = 15;

export async function runScheduleTicks(schedules: ScheduleService, signal: AbortSignal, logger: Logger, clock: () => number = Date.now): Promise<void> {
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
