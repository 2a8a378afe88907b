/**
 * One CLI process for one stage attempt, the way `command` stages run theirs: it leads
 * its own process group, registered with the process watchdog (weft dying ends it), and
 * it waits on a gate pipe until `beforeStart` has recorded the group in the run's log, so
 * a runner that takes a crashed run over can always find and end it. Stdout is read line
 * by line, in order (the next line waits for the previous one's handler); the last lines
 * of stderr are kept for the error report. Stopping (cancel, timeout) and the end of the
 * CLI both end whatever is left of the group (MCP servers the CLI started).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { errorMessage } from '../../core/errors.js';
import type { PreparedSandbox, WrapExtras } from '../../core/sandbox/sandbox-provider.js';
import { endMarkedProcesses } from '../../core/marked-processes.js';
import { PROCESS_GROUPS, groupAlive, terminateGroup } from '../../core/process-group.js';
import type { ProcessIdentity } from '../../core/process-identity.js';
import { processWatchdog, type GroupWatchdog } from '../../core/process-watchdog.js';
import { LineReader, LineTail } from '../../mcp/hub/line-reader.js';
import { openGate } from '../../tools/builtin/run-command.js';

/** SIGTERM first, SIGKILL this long after (what a cancelled `command` stage gets). */
const KILL_GRACE_MS = 1000;
/** One stream line larger than this is dropped (a CLI's lines carry tool outputs, which can be big). */
const MAX_LINE_BYTES = 32 * 1024 * 1024;

// Waits for `go` on fd 3, then becomes the CLI (same pid, same group). If weft dies before
// it says go, the pipe closes and the CLI never starts.
const GATE = 'IFS= read -r go <&3 && [ "$go" = go ] || exit 125; exec 3<&-; exec "$@"';

export interface CliProcessOptions {
  binary: string;
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  /** The `WEFT_STAGE_PROCESS` value in `env`: what the CLI started outside its group is ended by it. */
  marker: string;
  /** Keep stdin open for messages (`send`), else it is closed at once. */
  stdin: boolean;
  /** Records the group before the CLI runs; when it rejects, the CLI never starts. */
  beforeStart: (group: ProcessIdentity) => Promise<void>;
  /** Each stdout line (not blank), in order; the next waits for this one. */
  onLine: (line: string) => Promise<void>;
  signal: AbortSignal;
  watchdog?: GroupWatchdog;
  /** The run's OS sandbox: the CLI (and all it starts) runs inside it, with `sandboxExtras` beyond the run's rules. */
  sandbox?: PreparedSandbox;
  sandboxExtras?: WrapExtras;
}

export interface CliExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines of stderr. */
  stderrTail: string[];
  /** Stopped by `options.signal`. */
  stopped: boolean;
  /** The CLI could not be started at all (e.g. not executable). */
  spawnError?: string;
}

export interface CliProcess {
  /** Writes one line to the CLI's stdin (when it was kept open); false when it is closed. */
  send(line: string): boolean;
  /** Closes stdin: a stream-input CLI ends its session. */
  closeInput(): void;
  /** Settles when the CLI exited and its group is gone. */
  exited: Promise<CliExit>;
  /** Stops the whole group where it is (SIGSTOP), e.g. while a budget question waits; a no-op without process groups. */
  freeze(): void;
  /** Lets a frozen group go on (SIGCONT). */
  thaw(): void;
}

/**
 * @example
 * const cli = startCliProcess({ binary, args, cwd, env, stdin: true, beforeStart, onLine, signal });
 * cli.send(firstMessage);
 * const { exitCode, stderrTail } = await cli.exited;
 */
export function startCliProcess(options: CliProcessOptions): CliProcess {
  const watchdog = options.watchdog ?? processWatchdog;
  const stderrTail = new LineTail(20, 1000);
  let child: ChildProcess;
  try {
    const direct = {
      command: '/bin/sh',
      args: ['-c', GATE, 'weft-cli', options.binary, ...options.args],
      cwd: options.cwd,
      env: options.env,
    };
    const started = options.sandbox?.wrap(direct, options.sandboxExtras) ?? direct;
    child = spawn(started.command, started.args, {
      cwd: started.cwd,
      env: started.env,
      detached: PROCESS_GROUPS,
      stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
  } catch (error) {
    return {
      send: () => false,
      closeInput: () => undefined,
      freeze: () => undefined,
      thaw: () => undefined,
      exited: Promise.resolve({ exitCode: null, signal: null, stderrTail: [], stopped: false, spawnError: errorMessage(error) }),
    };
  }
  const pgid = child.pid;
  if (pgid !== undefined) watchdog.watch(pgid);
  child.stdin?.on('error', () => undefined);

  let lines = Promise.resolve();
  const stdout = new LineReader(
    (line) => {
      if (line.trim() !== '') lines = lines.then(() => options.onLine(line));
    },
    { maxLineBytes: MAX_LINE_BYTES, onOversize: (bytes) => stderrTail.add(`[weft: dropped a ${bytes}-byte stdout line]`) },
  );
  const stderr = new LineReader(
    (line) => {
      stderrTail.add(line);
      options.sandbox?.noticeViolations(line, options.cwd);
    },
    { maxLineBytes: 64 * 1024 },
  );
  child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: string }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => resolve({ code: null, signal: null, error: errorMessage(error) }));
  });

  let stopped = false;
  const stop = () => {
    stopped = true;
    if (pgid !== undefined) void terminateGroup(pgid, KILL_GRACE_MS);
    void endMarkedProcesses(options.marker, KILL_GRACE_MS);
  };

  const exited = (async (): Promise<CliExit> => {
    try {
      if (pgid !== undefined) await openGate(child, pgid, options.beforeStart);
      if (options.signal.aborted) stop();
      else options.signal.addEventListener('abort', stop, { once: true });
      const ended = await exit;
      // The CLI is gone; what it left in its group (MCP servers) goes too, and its shell commands, each in a session of its own.
      if (pgid !== undefined && PROCESS_GROUPS && groupAlive(pgid)) await terminateGroup(pgid, KILL_GRACE_MS);
      await endMarkedProcesses(options.marker, KILL_GRACE_MS);
      await closed;
      stdout.end();
      stderr.end();
      await lines;
      return {
        exitCode: ended.code,
        signal: ended.signal,
        stderrTail: stderrTail.lines(),
        stopped,
        ...(ended.error === undefined ? {} : { spawnError: ended.error }),
      };
    } finally {
      options.signal.removeEventListener('abort', stop);
      if (pgid !== undefined) watchdog.unwatch(pgid);
    }
  })();

  const signalGroup = (signal: NodeJS.Signals) => {
    if (pgid === undefined || !PROCESS_GROUPS) return;
    try {
      process.kill(-pgid, signal);
    } catch {
      // The group is gone already: nothing to stop or continue.
    }
  };

  return {
    freeze: () => signalGroup('SIGSTOP'),
    thaw: () => signalGroup('SIGCONT'),
    send: (line) => (child.stdin !== null && child.stdin.writable ? child.stdin.write(`${line}\n`) || true : false),
    closeInput: () => child.stdin?.end(),
    exited,
  };
}
