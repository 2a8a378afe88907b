/**
 * `shell`: runs `/bin/bash -c <command>` in the workspace. The command leads its own process
 * group, so a timeout or cancellation kills everything it started, backgrounded
 * grandchildren included, and the process watchdog ends the group if weft dies first.
 * Output is captured in memory with a bound per stream.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { withoutWeftSecrets } from '../../core/child-environment.js';
import { describeViolation, type PreparedSandbox } from '../../core/sandbox/index.js';
import { WeftError, errorMessage } from '../../core/errors.js';
import type { Tool, ToolContext, ToolResult } from '../tool.js';
import { textResult } from '../tool.js';
import { signalGroup, waitForGroupExit } from '../../core/process-group.js';
import { processIdentity, thisHost, type ProcessIdentity } from '../../core/process-identity.js';
import { processWatchdog, type GroupWatchdog } from '../../core/process-watchdog.js';

export interface ShellToolOptions {
  /** Timeout when the call gives none (settings); default 120 000 ms. */
  defaultTimeoutMs?: number;
  /** Largest `timeout_ms` a call may ask for; larger values are clamped. Default 600 000 ms. */
  maxTimeoutMs?: number;
  /** Bytes kept per stream (first half and last half when exceeded); default 10 MiB. */
  maxCaptureBytes?: number;
  /** Time between SIGTERM and SIGKILL when the group is stopped; default 1 000 ms. */
  killGraceMs?: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;
const MAX_CAPTURE_BYTES = 10 * 1024 * 1024;
const KILL_GRACE_MS = 1_000;
/** After the shell exits, how long to keep reading pipes a background process still holds. */
const DRAIN_MS = 250;
/** Bound on waiting for the kernel to tear the killed group down. */
const REAP_WAIT_MS = 2_000;

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

export function createShellTool(options: ShellToolOptions = {}): Tool {
  const maxTimeoutMs = options.maxTimeoutMs ?? MAX_TIMEOUT_MS;
  const defaultTimeoutMs = Math.min(options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS, maxTimeoutMs);
  const maxCaptureBytes = options.maxCaptureBytes ?? MAX_CAPTURE_BYTES;
  const killGraceMs = options.killGraceMs ?? KILL_GRACE_MS;

  return {
    name: 'shell',
    source: 'builtin',
    description:
      'Run a command with /bin/bash -c in the workspace root and return its exit code, stdout and stderr. ' +
      'stdin is closed. ' +
      `The default timeout is ${seconds(defaultTimeoutMs)}s; timeout_ms may raise it up to ${seconds(maxTimeoutMs)}s ` +
      '(larger values are clamped to that cap). On timeout the whole process group, including background ' +
      'processes the command started, is killed and the output captured so far is returned. ' +
      `Each output stream keeps at most ${Math.round(maxCaptureBytes / 1024 / 1024)} MiB (the start and the end).`,
    inputSchema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The bash command line to run, e.g. "npm test -- --run".' },
        timeout_ms: {
          type: 'integer',
          minimum: 1,
          description: `Timeout in milliseconds (default ${defaultTimeoutMs}; values above ${maxTimeoutMs} are clamped to ${maxTimeoutMs}).`,
        },
        description: {
          type: 'string',
          description: 'A short human-readable summary of what the command does, shown to the user.',
        },
      },
      required: ['command'],
      additionalProperties: false,
    },
    annotations: { title: 'Run shell command', readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    // Leave room for the tool's own timeout handling and kill grace before any executor limit.
    timeoutMs: maxTimeoutMs + killGraceMs + REAP_WAIT_MS + 30_000,
    async execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
      const command = args.command as string;
      const requested = typeof args.timeout_ms === 'number' ? args.timeout_ms : defaultTimeoutMs;
      const timeoutMs = Math.max(1, Math.min(requested, maxTimeoutMs));
      if (context.signal.aborted) throw new WeftError('TOOL_CANCELLED', 'Cancelled');

      const outcome = await runCommand(command, {
        cwd: context.workspaceRoot,
        timeoutMs,
        signal: context.signal,
        maxCaptureBytes,
        killGraceMs,
        ...(context.sandbox === undefined ? {} : { sandbox: context.sandbox }),
      });
      if (outcome.cancelled) throw new WeftError('TOOL_CANCELLED', 'Cancelled');
      const refused = context.sandbox?.noticeViolations(outcome.stderr, context.workspaceRoot) ?? [];
      const notes = refused.map((violation) => `\n[weft: ${describeViolation(violation)}]`).join('');

      return textResult(formatOutcome(outcome, timeoutMs, maxTimeoutMs) + notes, {
        isError: outcome.exitCode !== 0,
        structuredContent: {
          exitCode: outcome.exitCode,
          stdout: outcome.stdout,
          stderr: outcome.stderr,
          timedOut: outcome.timedOut,
          ...(outcome.signal ? { signal: outcome.signal } : {}),
        },
      });
    },
  };
}

export const shellTool: Tool = createShellTool();

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

function formatOutcome(outcome: ShellOutcome, timeoutMs: number, maxTimeoutMs: number): string {
  const parts: string[] = [];
  if (outcome.timedOut) {
    const hint = timeoutMs < maxTimeoutMs ? ` Pass a larger timeout_ms (up to ${maxTimeoutMs}) if the command needs more time.` : '';
    parts.push(`Command timed out after ${seconds(timeoutMs)}s; its whole process group was killed.${hint} Output captured so far:`);
  } else if (outcome.exitCode !== null) {
    parts.push(`Exit code: ${outcome.exitCode}`);
  } else {
    parts.push(`Exit code: none (terminated by ${outcome.signal ?? 'a signal'})`);
  }
  if (outcome.stdout.length > 0) parts.push(`<stdout>\n${trimFinalNewline(outcome.stdout)}\n</stdout>`);
  if (outcome.stderr.length > 0) parts.push(`<stderr>\n${trimFinalNewline(outcome.stderr)}\n</stderr>`);
  if (outcome.stdout.length === 0 && outcome.stderr.length === 0) parts.push('(no output)');
  if (outcome.pipesHeldOpen) {
    parts.push('(A background process started by the command still holds its output open; later output is not captured.)');
  }
  return parts.join('\n');
}

function trimFinalNewline(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** `500` → `0.5`, `120000` → `120`. */
function seconds(ms: number): string {
  return String(Number((ms / 1000).toFixed(3)));
}

function delay(ms: number): { promise: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/**
 * Keeps the first and last `limit / 2` bytes of a stream and counts what falls between,
 * so an enormous output costs bounded memory.
 */
export class StreamCapture {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  readonly #tail: Buffer[] = [];
  #tailBytes = 0;
  #total = 0;

  constructor(limit: number) {
    this.#headLimit = Math.ceil(limit / 2);
    this.#tailLimit = Math.floor(limit / 2);
  }

  get totalBytes(): number {
    return this.#total;
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#headBytes < this.#headLimit) {
      const take = Math.min(this.#headLimit - this.#headBytes, rest.length);
      this.#head.push(rest.subarray(0, take));
      this.#headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.#tail.push(rest);
    this.#tailBytes += rest.length;
    while (this.#tail.length > 1 && this.#tailBytes - this.#tail[0]!.length >= this.#tailLimit) {
      this.#tailBytes -= this.#tail.shift()!.length;
    }
  }

  text(): string {
    const head = Buffer.concat(this.#head);
    const tailAll = Buffer.concat(this.#tail);
    const tail = tailAll.subarray(Math.max(0, tailAll.length - this.#tailLimit));
    const omitted = this.#total - head.length - tail.length;
    if (omitted === 0) return Buffer.concat([head, tail]).toString('utf8');
    const headEnd = utf8CompletePrefix(head);
    const tailStart = utf8LeadingContinuation(tail);
    const dropped = omitted + (head.length - headEnd) + tailStart;
    return (
      head.subarray(0, headEnd).toString('utf8') +
      `\n\n[... ${dropped} bytes of output omitted (kept the first ${headEnd} and last ${tail.length - tailStart} of ${this.#total} bytes) ...]\n\n` +
      tail.subarray(tailStart).toString('utf8')
    );
  }
}

/** Length of the longest prefix of `buffer` that does not end inside a UTF-8 sequence. */
function utf8CompletePrefix(buffer: Buffer): number {
  for (let back = 1; back <= Math.min(4, buffer.length); back += 1) {
    const byte = buffer[buffer.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? buffer.length - back : buffer.length;
  }
  return buffer.length;
}

/** Number of continuation bytes at the start of `buffer` (the tail of a cut character). */
function utf8LeadingContinuation(buffer: Buffer): number {
  let count = 0;
  while (count < Math.min(3, buffer.length) && (buffer[count]! & 0xc0) === 0x80) count += 1;
  return count;
}
