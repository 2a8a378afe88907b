/**
 * Whether a store error is an outage that passes on its own — the PostgreSQL server
 * restarting, a network cut — rather than a refusal: loops that wait on runs (`weft wait`,
 * gather, `logs --follow`) ride such an outage out instead of failing, reading again after
 * a pause until their own deadline.
 */
import { WeftError } from '../../core/errors.js';

/** How long a waiting loop pauses before reading again while the store is unreachable. */
export const OUTAGE_RETRY_MS = 500;

export function isStoreOutage(error: unknown): boolean {
  if (!(error instanceof WeftError) || error.code !== 'STORE_FAILED') return false;
  const reason = (error.data as { reason?: unknown } | undefined)?.reason;
  return reason === 'unavailable';
}
