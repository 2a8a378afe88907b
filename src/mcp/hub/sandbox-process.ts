/**
 * The process behind a `type = "sandbox"` server in the local sandbox: started detached
 * in its own session and process group (registered with the watchdog, so it never
 * outlives weft), its stdout and stderr logged and the stderr tail kept for error
 * reports, waited on until something listens on 127.0.0.1:<port>, and stopped with
 * SIGTERM to the group, then SIGKILL after the grace period.
 */
import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { formatDuration } from '../../core/duration.js';
import type { Logger } from '../../core/logger.js';
import { reapGroup, spawnGroupChild, type StdioLaunch } from './group-child.js';
import { LineReader, LineTail } from './line-reader.js';
import { PROCESS_GROUPS, groupAlive, terminateGroup } from '../../core/process-group.js';
import { StartupProblem } from './startup-failure.js';
import type { GroupWatchdog } from '../../core/process-watchdog.js';
import type { ProcessSandbox } from './group-child.js';

/** The local sandbox exposes a server's port on the loopback interface. */
export const SANDBOX_HOST = '127.0.0.1';

export interface SandboxProcessOptions {
  server: string;
  launch: StdioLaunch;
  port: number;
  logger: Logger;
  watchdog?: GroupWatchdog;
  /** How long the server may take to listen on its port. */
  listenTimeoutMs: number;
  /** After SIGTERM, how long before SIGKILL. Default 2 s. */
  killGraceMs?: number;
  /** Interval between connection attempts while waiting for the port. Default 100 ms. */
  pollMs?: number;
  /** Starts the server inside the run's OS sandbox: its port is in the sandbox's own network namespace. */
  processSandbox?: ProcessSandbox;
}

export class SandboxProcess {
  /** The last 50 stderr lines, for error reports. */
  readonly stderrTail = new LineTail(50);
  /** Told once when the process exits on its own (not when `stop()` ends it). */
  onExit: ((description: string) => void) | undefined;
  readonly #options: SandboxProcessOptions;
  #child: ChildProcess | undefined;
  #exit: string | undefined;
  #exited: Promise<void> = new Promise(() => {});
  #closed: Promise<void> = Promise.resolve();
  #stopping = false;

  constructor(options: SandboxProcessOptions) {
    this.#options = options;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** `exited with code 3`, `was killed by SIGKILL`, or undefined while it runs. */
  get exitDescription(): string | undefined {
    return this.#exit;
  }

  /** Starts the server and resolves once its port accepts connections. */
  async start(): Promise<void> {
    const { port } = this.#options;
    if (this.#options.processSandbox === undefined && (await portAccepts(port, 1000))) {
      throw new StartupProblem(
        `port ${port} is already in use on ${SANDBOX_HOST} before the server started — stop whatever listens there, or pick another port`,
      );
    }
    await this.#spawn();
    await this.#waitForListening();
  }

  /** SIGTERM to the process group, SIGKILL after the grace period; resolves when it is gone. */
  async stop(): Promise<void> {
    this.#stopping = true;
    const child = this.#child;
    const pid = child?.pid;
    if (!child || pid === undefined) return;
    const graceMs = this.#options.killGraceMs ?? 2000;
    if (this.#exit === undefined || (PROCESS_GROUPS && groupAlive(pid))) await terminateGroup(pid, graceMs);
    this.#options.watchdog?.unwatch(pid);
    child.stdout?.destroy();
    child.stderr?.destroy();
  }

  async #spawn(): Promise<void> {
    const { logger, server } = this.#options;
    const sandbox = this.#options.processSandbox;
    await spawnGroupChild({
      ...this.#options,
      ...(sandbox === undefined
        ? {}
        : {
            processSandbox: {
              wrap: (spec) => sandbox.wrap(spec, { inboundPorts: [this.#options.port] }),
              noticeViolations: (stderr, cwd) => sandbox.noticeViolations(stderr, cwd),
              exposePort: (port) => sandbox.exposePort(port),
              listensInside: (pid, port) => sandbox.listensInside(pid, port),
            },
          }),
      stdin: 'ignore',
      stderrTail: this.stderrTail,
      onChild: (child) => {
        this.#child = child;
        this.#exited = new Promise((done) => child.once('exit', () => done()));
        this.#closed = new Promise((done) => child.once('close', () => done()));
        const stdout = new LineReader((line) => logger.debug(`MCP [${server}] stdout: ${line}`), { maxLineBytes: 1024 * 1024 });
        child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
        child.stdout?.on('end', () => stdout.end());
      },
      onError: (error) => logger.debug(`MCP [${server}] process error: ${error.message}`),
      onExit: (description, child) => this.#onExit(child, description),
    });
  }

  async #waitForListening(): Promise<void> {
    const { port, listenTimeoutMs, pollMs = 100 } = this.#options;
    const deadline = Date.now() + listenTimeoutMs;
    for (;;) {
      if (this.#stopping) throw new StartupProblem('the server was stopped before it listened');
      if (this.#exit !== undefined) {
        // Let the last stderr lines arrive before reporting them.
        await Promise.race([this.#closed, delay(250)]);
        throw new StartupProblem(`the server ${this.#exit} before listening on port ${port} — see its stderr below`);
      }
      if (await this.#listening(port, Math.max(pollMs, 250))) return;
      if (Date.now() >= deadline) {
        throw new StartupProblem(
          `the server did not listen on ${SANDBOX_HOST}:${port} within ${formatDuration(listenTimeoutMs)} — check that it listens on port ${port} (weft sets PORT=${port} for it), or raise startup_timeout`,
        );
      }
      await Promise.race([delay(pollMs), this.#exited]);
    }
  }

  /** Inside the OS sandbox, read from the sandbox's socket table (a connection would only reach weft's forward). */
  #listening(port: number, timeoutMs: number): Promise<boolean> {
    const sandbox = this.#options.processSandbox;
    const pid = this.#child?.pid;
    if (sandbox === undefined) return portAccepts(port, timeoutMs);
    return Promise.resolve(pid !== undefined && sandbox.listensInside(pid, port));
  }

  #onExit(child: ChildProcess, description: string): void {
    this.#exit = description;
    const pid = child.pid;
    if (this.#stopping || pid === undefined) return;
    // Anything the server left behind in its group goes too.
    void reapGroup(pid, this.#options.killGraceMs ?? 2000, this.#options.watchdog);
    this.onExit?.(this.#exit);
  }
}

/** The URL the local sandbox exposes for a server: `/mcp` for Streamable HTTP, `/sse` for SSE. */
export function sandboxUrl(port: number, protocol: 'streamable_http' | 'sse'): URL {
  return new URL(`http://${SANDBOX_HOST}:${port}${protocol === 'sse' ? '/sse' : '/mcp'}`);
}

/** Whether a TCP connection to 127.0.0.1:`port` succeeds within `timeoutMs`. */
export function portAccepts(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: SANDBOX_HOST, port });
    const done = (open: boolean) => {
      socket.removeAllListeners();
      socket.on('error', () => {});
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
