/**
 * How `weft serve`, `weft mcp start` and the library's servers (`weft-runtime/server`, when
 * the application gives no `onError`) report the protocol errors their transports raise:
 * those messages quote what a client sent (a zod issue lists every unknown key, a 1 MB key
 * becomes 8 MB of stderr), so each is redacted, put on one line with control characters
 * escaped (no terminal escapes from a client), and cut to a bounded length; and at most
 * `perMinute` lines are written a minute, the rest counted and reported in one line when the
 * next error comes after the minute (no timer keeps the process busy for it).
 */
import { redactSecrets } from '../../core/redact.js';

export const MAX_ERROR_CHARS = 300;
const PER_MINUTE = 20;
const MINUTE_MS = 60_000;

export interface ErrorReportOptions {
  write?: (line: string) => void;
  perMinute?: number;
  clock?: () => number;
}

/** One line of at most MAX_ERROR_CHARS characters (plus the count of what was cut). */
export function boundedErrorText(message: string): string {
  const oneLine = redactSecrets(message)
    .replace(/\s+/g, ' ')
    // C0 and C1 controls and DEL, shown as escapes rather than obeyed by a terminal.
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .trim();
  if (oneLine.length <= MAX_ERROR_CHARS) return oneLine;
  return `${oneLine.slice(0, MAX_ERROR_CHARS)}… (${oneLine.length - MAX_ERROR_CHARS} more characters)`;
}

/** @example onError: serverErrorReporter('weft: mcp server') */
export function serverErrorReporter(prefix: string, options: ErrorReportOptions = {}): (error: Error) => void {
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const perMinute = options.perMinute ?? PER_MINUTE;
  const clock = options.clock ?? Date.now;
  let windowStart = Number.NEGATIVE_INFINITY;
  let written = 0;
  let suppressed = 0;
  return (error) => {
    const now = clock();
    if (now - windowStart >= MINUTE_MS) {
      if (suppressed > 0)
        write(`${prefix}: ${suppressed} more error${suppressed === 1 ? '' : 's'} not shown (at most ${perMinute} a minute)\n`);
      windowStart = now;
      written = 0;
      suppressed = 0;
    }
    if (written >= perMinute) {
      suppressed += 1;
      return;
    }
    written += 1;
    write(`${prefix}: ${boundedErrorText(error.message)}\n`);
  };
}
