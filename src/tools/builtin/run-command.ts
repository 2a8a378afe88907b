/**
 * Runs one command line with `/bin/bash -c` as the leader of its own process group (inside
 * the run's sandbox when there is one), supervised to completion, timeout or cancellation:
 * a stop kills the whole group, background grandchildren included, and the process
 * watchdog ends the group if weft dies first. An optional gate holds the command until a
 * crash-safe record of its group is written. Output is captured with a bound per stream.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { withoutWeftSecrets } from '../../core/child-environment.js';
import type { PreparedSandbox } from '../../core/sandbox/index.js';
import { WeftError, errorMessage } from '../../core/errors.js';
import { signalGroup, waitForGroupExit } from '../../core/process-group.js';
import { processIdentity, thisHost, type ProcessIdentity } from '../../core/process-identity.js';
import { processWatchdog, type GroupWatchdog } from '../../core/process-watchdog.js';
import { StreamCapture } from './stream-capture.js';

/** After the shell exits, how long to keep reading pipes a background process still holds. */
const DRAIN_MS = 250;
/** Bound on waiting for the kernel to tear the killed group down. */
export const REAP_WAIT_MS = 2_000;

export interface ShellOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
  /** The shell exited but something it started kept stdout/stderr open; we stopped reading. */
  pipesHeldOpen: boolean;
}

export interface RunOptions {
  cwd: string;
  /** Added to the inherited environment. */
  env?: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  maxCaptureBytes: number;
  killGraceMs: number;
  /** Ends the group if this process dies while the command runs. Default: the process-wide watchdog. */
  watchdog?: GroupWatchdog;
  /**
   * Called with the group leader's identity after the process exists and before the command
   * runs (it waits on a pipe), so a crash-safe record of the group can be written first. When
   * it rejects, the command never runs and `runCommand` rejects with its error.
   */
  beforeStart?: (group: ProcessIdentity) => Promise<void>;
  /** Called with each piece of output as it arrives (live views); the outcome still holds all of it. */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
  /** The run's sandbox: the command runs inside it. */
  sandbox?: Pick<PreparedSandbox, 'wrap'>;
}

// Waits for `go` on fd 3 and then becomes the command (same pid, same group). If weft dies
// before it says go, the pipe closes and the command never runs.
const GATE = 'IFS= read -r go <&3 && [ "$go" = go ] || exit 125; exec 3<&-; exec /bin/bash -c "$1"';

/** Runs the command to completion, timeout or cancellation; never leaves the group running after a stop. */
export async function runCommand(command: string, options: RunOptions): Promise<ShellOutcome> {
  let child: ChildProcess;
  try {
    const direct = {
      command: '/bin/bash',
      args: options.beforeStart ? ['-c', GATE, 'weft-command', command] : ['-c', command],
      cwd: options.cwd,
      env: withoutWeftSecrets({ ...process.env, ...options.env }),
    };
    const started = options.sandbox?.wrap(direct) ?? direct;
    child = spawn(started.command, started.args, {
      cwd: started.cwd,
      detached: true,
      stdio: options.beforeStart ? ['ignore', 'pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'],
      env: started.env,
    });
  } catch (error) {
    throw new WeftError('TOOL_FAILED', `Could not start /bin/bash in ${options.cwd}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  const watchdog = options.watchdog ?? processWatchdog;
  const pgid = child.pid;
  if (pgid !== undefined) watchdog.watch(pgid);
  const { beforeStart } = options;
  try {
    return await superviseCommand(child, options, beforeStart && pgid !== undefined ? () => openGate(child, pgid, beforeStart) : undefined);
  } finally {
    if (pgid !== undefined) watchdog.unwatch(pgid);
  }
}

/**
 * Runs `beforeStart` with the group's identity, then lets a child waiting on its fd 3 gate
 * go on; when `beforeStart` rejects, the group is killed and the error rethrown. Also used
 * by CLI agent stages, whose CLI waits on the same kind of gate.
 */
export async function openGate(child: ChildProcess, pgid: number, beforeStart: (group: ProcessIdentity) => Promise<void>): Promise<void> {
  const gate = child.stdio[3] as NodeJS.WritableStream & { on(event: 'error', listener: () => void): void };
  // The gate may already be gone (killed, or it could not read); its exit is reported as usual.
  gate.on('error', () => undefined);
  try {
    await beforeStart(processIdentity(pgid) ?? { host: thisHost(), pid: pgid, start: '' });
  } catch (error) {
    signalGroup(pgid, 'SIGKILL');
    await waitForGroupExit(pgid, REAP_WAIT_MS, 10);
    throw error;
  }
  gate.end('go\n');
}

async function superviseCommand(
  child: ChildProcess,
  options: RunOptions,
  openGate: (() => Promise<void>) | undefined,
): Promise<ShellOutcome> {
  const stdout = new StreamCapture(options.maxCaptureBytes);
  const stderr = new StreamCapture(options.maxCaptureBytes);
  const { onOutput } = options;
  child.stdout?.on('data', (chunk: Buffer) => (stdout.push(chunk), onOutput?.('stdout', chunk)));
  child.stderr?.on('data', (chunk: Buffer) => (stderr.push(chunk), onOutput?.('stderr', chunk)));

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) =>
      reject(
        new WeftError('TOOL_FAILED', `Could not start /bin/bash in ${options.cwd}: ${errorMessage(error)}`, {
          cause: error,
        }),
      ),
    );
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  if (openGate) {
    // Listeners first: the gate may die while the record is written, and its exit must not be missed.
    exited.catch(() => undefined);
    await openGate();
  }

  let stopTimer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopRequested = new Promise<'timeout' | 'cancelled'>((resolve) => {
    stopTimer = setTimeout(() => resolve('timeout'), options.timeoutMs);
    onAbort = () => resolve('cancelled');
    // A cancel that came while the gate waited for its record stops the command at once.
    if (options.signal.aborted) resolve('cancelled');
    else options.signal.addEventListener('abort', onAbort, { once: true });
  });

  let stopReason: 'timeout' | 'cancelled' | undefined;
  let exit: { code: number | null; signal: NodeJS.Signals | null };
  try {
    const first = await Promise.race([
      exited.then((value) => ({ kind: 'exit' as const, value })),
      stopRequested.then((reason) => ({ kind: 'stop' as const, reason })),
    ]);
    if (first.kind === 'stop') {
      stopReason = first.reason;
      exit = await stopCommandGroup(child, exited, options.killGraceMs);
    } else {
      exit = first.value;
    }
  } finally {
    clearTimeout(stopTimer);
    if (onAbort) options.signal.removeEventListener('abort', onAbort);
  }

  // The shell is gone; read what is left in the pipes. A background process that outlives the
  // shell (and was not killed) may hold them open for ever, so stop reading after a short drain.
  const drain = delay(DRAIN_MS);
  const pipesHeldOpen = await Promise.race([closed.then(() => false), drain.promise.then(() => true)]);
  drain.cancel();
  if (pipesHeldOpen) {
    child.stdout?.destroy();
    child.stderr?.destroy();
  }

  return {
    exitCode: exit.code,
    signal: exit.signal,
    stdout: stdout.text(),
    stderr: stderr.text(),
    timedOut: stopReason === 'timeout',
    cancelled: stopReason === 'cancelled',
    pipesHeldOpen,
  };
}

/**
 * SIGTERM the group, give the command a grace period, then SIGKILL whatever is left and wait
 * for it to go. Unlike core's `terminateGroup` (which waits for the whole group), the grace
 * ends when the command itself exits: what it left running in the background is killed at once.
 */
async function stopCommandGroup(
  child: ChildProcess,
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>,
  graceMs: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const pgid = child.pid;
  if (pgid === undefined) return exited;
  signalGroup(pgid, 'SIGTERM');
  const grace = delay(graceMs);
  await Promise.race([exited.catch(() => undefined), grace.promise]);
  grace.cancel();
  // Members that trapped or ignored SIGTERM, or have not finished dying, go now.
  signalGroup(pgid, 'SIGKILL');
  const exit = await exited;
  await waitForGroupExit(pgid, REAP_WAIT_MS, 10);
  return exit;
}

function delay(ms: number): { promise: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}
