/**
 * Process exit codes, and the one mapping from error codes to them: 2 when the caller
 * asked wrongly (the catalogue's `caller` and `missing` fault classes), 1 for a failure of
 * the thing asked.
 */
import { catalogueEntry, type ErrorEntry, type FaultClass } from '../../core/error-catalogue.js';
import type { WeftErrorCode } from '../../core/errors.js';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** 128 + SIGINT, as a shell reports a command stopped with Ctrl-C. */
export const EXIT_INTERRUPTED = 130;

/** A mistake in what was asked (its arguments, the files it names, a name that does not exist) is a usage error. */
const USAGE_FAULTS: ReadonlySet<FaultClass> = new Set(['caller', 'missing']);

/** From the code's fault class in the catalogue; no exceptions. A code this version does not know (from a newer runner's event) is 1. */
export function exitCodeFor(code: WeftErrorCode): number {
  const fault = (catalogueEntry(code) as ErrorEntry | undefined)?.fault;
  return fault !== undefined && USAGE_FAULTS.has(fault) ? EXIT_USAGE : EXIT_FAILURE;
}
