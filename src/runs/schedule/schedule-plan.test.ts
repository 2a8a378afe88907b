import { describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { MAX_CATCH_UP, nextDueAfter, ON_TIME_MS, parseCron, planTick } from './schedule-plan.js';

const at = (iso: string) => Date.parse(iso);
const hourly = parseCron({ cron: '0 * * * *', timezone: 'UTC' });

describe('parseCron', () => {
  it('refuses a bad expression and a bad zone, naming the field and value', () => {
    for (const [spec, field] of [
      [{ cron: '61 * * * *' }, 'cron'],
      [{ cron: '' }, 'cron'],
      [{ cron: '* * *' }, 'cron'],
      [{ cron: '* * * * *', timezone: 'Mars/Olympus' }, 'timezone'],
    ] as const) {
      const error = (() => {
        try {
          parseCron(spec, "schedule 'x'");
        } catch (failure) {
          return failure;
        }
      })();
      expect(WeftError.is(error, 'SCHEDULE_INVALID')).toBe(true);
      expect((error as WeftError<'SCHEDULE_INVALID'>).data.field).toBe(field);
      expect((error as Error).message).toContain("schedule 'x'");
    }
  });

  it('steps in the given zone: 03:00 in Paris is 02:00 UTC in winter, 01:00 in summer', () => {
    const paris = parseCron({ cron: '0 3 * * *', timezone: 'Europe/Paris' });
    expect(nextDueAfter(paris, at('2026-01-10T12:00:00Z'))).toBe(at('2026-01-11T02:00:00Z'));
    expect(nextDueAfter(paris, at('2026-07-10T12:00:00Z'))).toBe(at('2026-07-11T01:00:00Z'));
  });

  it('takes six fields with seconds first', () => {
    expect(nextDueAfter(parseCron({ cron: '*/5 * * * * *' }), at('2026-01-01T00:00:01Z'))).toBe(at('2026-01-01T00:00:05Z'));
  });
});

describe('planTick', () => {
  it('fires the one due time and moves to the next after now', () => {
    const plan = planTick(hourly, 'none', at('2026-01-01T10:00:00Z'), at('2026-01-01T10:00:00.400Z'));
    expect(plan).toEqual({ fire: [at('2026-01-01T10:00:00Z')], missed: 0, next: at('2026-01-01T11:00:00Z') });
  });

  it('does nothing before the due time', () => {
    expect(planTick(hourly, 'all', at('2026-01-01T11:00:00Z'), at('2026-01-01T10:59:59Z')).fire).toEqual([]);
  });

  it('catch_up = "none": after an outage, times passed are skipped; the current one fires only if on time', () => {
    const late = planTick(hourly, 'none', at('2026-01-01T10:00:00Z'), at('2026-01-01T13:30:00Z'));
    expect(late).toEqual({ fire: [], missed: 4, next: at('2026-01-01T14:00:00Z') });
    const onTime = planTick(hourly, 'none', at('2026-01-01T10:00:00Z'), at('2026-01-01T13:00:00Z') + ON_TIME_MS - 1);
    expect(onTime.fire).toEqual([at('2026-01-01T13:00:00Z')]);
    expect(onTime.missed).toBe(3);
  });

  it('catch_up = "last": only the newest passed time fires', () => {
    const plan = planTick(hourly, 'last', at('2026-01-01T10:00:00Z'), at('2026-01-01T13:30:00Z'));
    expect(plan).toEqual({ fire: [at('2026-01-01T13:00:00Z')], missed: 3, next: at('2026-01-01T14:00:00Z') });
  });

  it('catch_up = "all": every passed time fires, oldest first, at most MAX_CATCH_UP', () => {
    const plan = planTick(hourly, 'all', at('2026-01-01T10:00:00Z'), at('2026-01-01T13:30:00Z'));
    expect(plan.fire).toEqual(['10', '11', '12', '13'].map((hour) => at(`2026-01-01T${hour}:00:00Z`)));
    const everySecond = parseCron({ cron: '* * * * * *' });
    const huge = planTick(everySecond, 'all', at('2026-01-01T00:00:00Z'), at('2026-01-02T00:00:00Z'));
    expect(huge.fire).toHaveLength(MAX_CATCH_UP);
    expect(huge.fire.at(-1)).toBe(at('2026-01-02T00:00:00Z'));
  });
});
