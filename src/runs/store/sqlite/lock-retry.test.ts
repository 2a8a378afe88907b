import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { retryWhileLocked } from './lock-retry.js';

const busy = () => new Database.SqliteError('database is locked', 'SQLITE_BUSY');

describe('retryWhileLocked', () => {
  it('tries again while the database is locked, telling about each new attempt, and returns the first success', async () => {
    const retries: number[] = [];
    let calls = 0;
    const result = await retryWhileLocked({ attempts: 3, delayMs: 0, onRetry: (next) => retries.push(next) }, () => {
      calls += 1;
      if (calls < 3) throw busy();
      return 'done';
    });
    expect([result, calls, retries]).toEqual(['done', 3, [2, 3]]);
  });

  it('gives up after the last attempt with the lock error, and never retries any other error', async () => {
    let calls = 0;
    const alwaysLocked = (): never => {
      calls += 1;
      throw busy();
    };
    await expect(retryWhileLocked({ attempts: 2, delayMs: 0 }, alwaysLocked)).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    expect(calls).toBe(2);
    calls = 0;
    const broken = (): never => {
      calls += 1;
      throw new Error('constraint');
    };
    await expect(retryWhileLocked({ attempts: 5, delayMs: 0 }, broken)).rejects.toThrow('constraint');
    expect(calls).toBe(1);
  });
});
