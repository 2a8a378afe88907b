/**
 * The channel a detached runner tells the process that launched it why it ended. The
 * runner's stderr goes to `<storage dir>/logs/runner.log`; when that disk is full (or the log
 * cannot be written for any other reason) its last words would be lost, and with them the
 * only explanation a user following the run could get. So the launcher also hands the runner
 * one end of a socket pair (fd 3, `--report-fd 3`): the runner writes its final error there
 * first, and the launcher — while it still lives (`weft run` following the run, `weft mcp
 * start`) — logs it with the runner's pid and exit code. A launcher that has exited simply
 * is not told; the runner ignores the failed write.
 */
import { writeSync } from 'node:fs';
import type { Readable } from 'node:stream';

/** The fd the launcher gives the runner for its report (after stdin, stdout, stderr). */
export const RUNNER_REPORT_FD = 3;
/** Kept of a report: its last characters (a report is one error message; a stack at most). */
const REPORT_LIMIT = 4096;

let reportFd: number | undefined;

/** Called by a runner told `--report-fd <n>`: its final error is also written to that fd. */
export function reportToLauncherOn(fd: number): void {
  reportFd = fd;
}

/** Writes the runner's final error to its launcher, if it has one; never throws (the launcher may be gone: EPIPE). */
export function tellLauncher(text: string): void {
  if (reportFd === undefined) return;
  try {
    writeSync(reportFd, text.endsWith('\n') ? text : `${text}\n`);
  } catch {
    // The launcher exited (EPIPE) or closed its end: nobody is listening, the log has the rest.
  }
}

/** Collects what a runner reports on its fd; `text()` resolves once the runner's end is closed (it exited). */
export function collectReport(stream: Readable): { text(): Promise<string> } {
  let text = '';
  const closed = new Promise<void>((resolve) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', () => resolve());
  });
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    text = (text + chunk).slice(-REPORT_LIMIT);
  });
  return { text: async () => (await closed, text.trim()) };
}
