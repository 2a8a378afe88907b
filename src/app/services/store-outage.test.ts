// Which store errors a waiting loop rides out: only a store that cannot be reached (PostgreSQL restarting, a
// network cut); a refusal, a closed store or any other error still ends the wait.
import { describe, expect, it } from 'vitest';
import { WeftError, type WeftErrorCode } from '../../core/errors.js';
import { isStoreOutage } from './store-outage.js';

describe('isStoreOutage', () => {
  it('is true only for STORE_FAILED with reason unavailable', () => {
    expect(isStoreOutage(new WeftError('STORE_FAILED', 'cannot be reached', { data: { reason: 'unavailable' } }))).toBe(true);
    expect(isStoreOutage(new WeftError('STORE_FAILED', 'closed', { data: { reason: 'closed' } }))).toBe(false);
    expect(isStoreOutage(new WeftError('STORE_FAILED', 'other', { data: { reason: 'other' } }))).toBe(false);
    expect(isStoreOutage(new WeftError('RUN_NOT_FOUND' as WeftErrorCode, 'no such run', { data: { reason: 'unavailable' } }))).toBe(false);
    expect(isStoreOutage(new Error('unavailable'))).toBe(false);
  });
});
