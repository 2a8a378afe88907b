/**
 * ULIDs for everything weft names. Any id that may reach a file path is checked here,
 * so `../../etc/passwd` can never become part of one.
 */
import { monotonicFactory } from 'ulid';
import { WeftError } from './errors.js';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export type IdGenerator = () => string;

export const newId: IdGenerator = monotonicFactory();

export function isUlid(value: string): boolean {
  return ULID.test(value);
}

export function assertUlid(value: string, what: string): string {
  if (!isUlid(value)) {
    throw new WeftError(
      'INVALID_ID',
      `Invalid ${what} '${value.slice(0, 80)}': expected a 26-character ULID such as 01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC.`,
      { data: { value: value.slice(0, 80) } },
    );
  }
  return value;
}
