/**
 * A reader that stops reading (`weft ps | head -1`, `weft logs <id> | less` quit early)
 * ends the command quietly with exit 0. Unix tools die of SIGPIPE there; Node ignores
 * SIGPIPE, so the next write fails with EPIPE instead, and unhandled that is a stack
 * trace and exit 1. A stderr that cannot be written (a log file on a full disk, as a
 * detached runner's is) loses its lines but does not end the process.
 */
import { EXIT_OK } from './exit-codes.js';

/** Installs the quiet ending on stdout and stderr; other stdout errors stay fatal. */
export function endQuietlyWhenOutputCloses(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(EXIT_OK);
      // Diagnostics have nowhere else to go; a runner dying of its own log would leave its run stranded.
      if (stream === process.stderr) return;
      throw error;
    });
  }
}
