/**
 * A server process of weft's own in its own process group: started detached (so the
 * whole group can be signalled) and registered with the watchdog (so it never outlives
 * weft), its stderr logged line by line with the tail kept for error reports, and its
 * group reaped when the leader exits. The stdio transport and the sandbox process both
 * start their servers through here; what they do with stdout and how they stop differ.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '../../core/logger.js';
import type { PreparedSandbox } from '../../core/sandbox/sandbox-provider.js';
import { PROCESS_GROUPS, groupAlive, terminateGroup } from '../../core/process-group.js';
import { LineReader, type LineTail } from './line-reader.js';
import type { GroupWatchdog } from '../../core/process-watchdog.js';

export interface StdioLaunch {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

/** The part of a run's OS sandbox a server process needs: start inside it, report what it refused. */
export type ProcessSandbox = Pick<PreparedSandbox, 'wrap' | 'noticeViolations' | 'exposePort' | 'listensInside'>;

export interface GroupChildOptions {
  server: string;
  launch: StdioLaunch;
  logger: Logger;
  watchdog?: GroupWatchdog;
  /** `pipe` when weft talks to the server on stdin. */
  stdin: 'pipe' | 'ignore';
  /** Where the last stderr lines go. */
  stderrTail: LineTail;
  /** Called with the child as soon as it exists, before any of its events, to wire stdout. */
  onChild: (child: ChildProcess) => void;
  /** An error of the process after it started (a failure to start rejects instead). */
  onError: (error: Error) => void;
  /** The leader exited: `exited with code 3` or `was killed by SIGKILL`. */
  onExit: (description: string, child: ChildProcess) => void;
  /** Starts the server inside the run's OS sandbox. */
  processSandbox?: ProcessSandbox;
}

/** Spawns the server; resolves with the child once it runs, rejects when it could not start. */
export function spawnGroupChild(options: GroupChildOptions): Promise<ChildProcess> {
  const launch = options.processSandbox?.wrap(options.launch) ?? options.launch;
  return new Promise((resolve, reject) => {
    const child = spawn(launch.command, launch.args, {
      cwd: launch.cwd,
      env: launch.env,
      stdio: [options.stdin, 'pipe', 'pipe'],
      detached: PROCESS_GROUPS,
      windowsHide: true,
    });
    let spawned = false;
    options.onChild(child);
    child.once('spawn', () => {
      spawned = true;
      if (child.pid !== undefined) options.watchdog?.watch(child.pid);
      resolve(child);
    });
    child.on('error', (error) => {
      if (!spawned) reject(error);
      else options.onError(error);
    });
    child.once('exit', (code, signal) =>
      options.onExit(signal ? `was killed by ${signal}` : `exited with code ${code ?? 'unknown'}`, child),
    );
    captureStderr(child, options);
  });
}

/** Ends what the leader left behind in its group and stops watching it. */
export async function reapGroup(pid: number, killGraceMs: number, watchdog: GroupWatchdog | undefined): Promise<void> {
  if (PROCESS_GROUPS && groupAlive(pid)) await terminateGroup(pid, killGraceMs);
  watchdog?.unwatch(pid);
}

function captureStderr(
  child: ChildProcess,
  options: Pick<GroupChildOptions, 'server' | 'logger' | 'stderrTail' | 'processSandbox' | 'launch'>,
): void {
  const { logger, server } = options;
  const stderr = new LineReader(
    (line) => {
      options.stderrTail.add(line);
      options.processSandbox?.noticeViolations(line, options.launch.cwd);
      logger.debug(`MCP [${server}] stderr: ${line}`);
    },
    { maxLineBytes: 1024 * 1024 },
  );
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stderr?.on('end', () => stderr.end());
  child.stdout?.on('error', (error) => logger.debug(`MCP [${server}] stdout: ${error.message}`));
  child.stderr?.on('error', (error) => logger.debug(`MCP [${server}] stderr stream: ${error.message}`));
}
