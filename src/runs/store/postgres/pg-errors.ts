/**
 * Turns `pg` failures into `STORE_FAILED` errors that name the database by its masked URL
 * and say what to do. `data.reason` uses the tags of the SQLite store, plus `unavailable`
 * for a server that cannot be reached (down, restarting, network cut).
 */
import { WeftError } from '../../../core/errors.js';

export type PgFailureReason = 'unavailable' | 'closed' | 'conflict' | 'other';

/** SQLSTATE classes and socket errors that mean "the server is not there right now". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
]);

function pgCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function isUnavailable(error: unknown): boolean {
  const code = pgCode(error);
  if (code !== undefined && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message);
}

export function isUniqueViolation(error: unknown): boolean {
  return pgCode(error) === '23505';
}

export function isForeignKeyViolation(error: unknown): boolean {
  return pgCode(error) === '23503';
}

export function pgStoreFailed(database: string, reason: PgFailureReason, message: string, cause?: unknown): WeftError {
  return new WeftError('STORE_FAILED', message, { data: { database, reason }, cause });
}

/** `WeftError`s pass through; database and socket errors become `STORE_FAILED`. */
export function toPgStoreError(error: unknown, database: string, action: string): unknown {
  if (error instanceof WeftError) return error;
  const head = `Could not ${action}:`;
  if (isUnavailable(error)) {
    return pgStoreFailed(
      database,
      'unavailable',
      `${head} the PostgreSQL server at ${database} cannot be reached (${pgCode(error) ?? 'connection lost'}). Check that it is running and reachable from this host; weft reconnects on its own.`,
      error,
    );
  }
  const code = pgCode(error);
  if (code === undefined && !(error instanceof Error && 'severity' in error)) return error;
  return pgStoreFailed(
    database,
    'other',
    `${head} PostgreSQL at ${database} reported ${code ?? 'an error'}: ${error instanceof Error ? error.message : String(error)}.`,
    error,
  );
}
