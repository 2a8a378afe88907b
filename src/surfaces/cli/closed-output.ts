/**
 * A reader that stops reading (`weft ps | head -1`, `weft logs <id> | less` quit early)
 * ends the command quietly with exit 0. Unix tools die of SIGPIPE there; Node ignores
 * SIGPIPE, so the next write fails with EPIPE instead, and unhandled that is a stack
 * trace and exit 1.
 */
import { EXIT_OK } from './exit-codes.js';

/** Installs the quiet ending on stdout and stderr; other stream errors stay fatal. */
export function endQuietlyWhenOutputCloses(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(EXIT_OK);
      throw error;
    });
  }
}
