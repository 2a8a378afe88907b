/**
 * What every SQLite call of the store does when another process holds the database: wait a
 * little longer each time and try again, a bounded number of times, then give up with the
 * last error. (SQLite's own busy timeout already waited inside each attempt.)
 */
import { setTimeout as delay } from 'node:timers/promises';
import { isBusy } from './sqlite-errors.js';

export interface LockRetry {
  attempts: number;
  /** The pause after attempt n is n × this. */
  delayMs: number;
  /** Which failures mean "locked" (default: SQLITE_BUSY / SQLITE_LOCKED). */
  locked?: (error: unknown) => boolean;
  /** Told before attempt `next` starts. */
  onRetry?: (next: number) => void;
}

/** @example await retryWhileLocked({ attempts: 3, delayMs: 25 }, () => statement.run(id)); */
export async function retryWhileLocked<T>(retry: LockRetry, body: () => T): Promise<T> {
  const locked = retry.locked ?? isBusy;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return body();
    } catch (error) {
      if (!locked(error) || attempt >= retry.attempts) throw error;
      retry.onRetry?.(attempt + 1);
      await delay(retry.delayMs * attempt);
    }
  }
}
