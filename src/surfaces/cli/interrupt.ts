/**
 * Ctrl-C (and, for long-lived commands, SIGTERM) as an AbortSignal for the work a command
 * is doing, so it stops the way the work decides — release leases, end a session, stop
 * following — instead of the process dying mid-write.
 */

/** Runs `work` with a signal that aborts on the first of `signals`; the handlers leave with it. */
export async function untilInterrupted<T>(
  work: (signal: AbortSignal) => Promise<T>,
  signals: readonly NodeJS.Signals[] = ['SIGINT'],
): Promise<T> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  for (const name of signals) process.once(name, abort);
  try {
    return await work(controller.signal);
  } finally {
    for (const name of signals) process.off(name, abort);
  }
}
