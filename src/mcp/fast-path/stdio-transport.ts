/**
 * The MCP stdio transport weft uses instead of the SDK's: the server runs in its own
 * process group (registered with the watchdog), stdout lines that are not JSON-RPC are
 * skipped instead of breaking the connection, messages may be large (tens of MB), stderr
 * is logged line by line and its tail kept for error reports, and shutdown escalates
 * from closing stdin to SIGTERM and SIGKILL of the whole group.
 *
 * Used on both paths: the switch turns off only the hub's own `tools/call`, which claims its
 * responses here (`InboundClaim`, direct-tool-calls.ts). Retired when the SDK's
 * `StdioClientTransport` takes a spawn hook (process group, sandbox wrapper), skips
 * non-JSON-RPC stdout lines instead of closing, and streams stderr lines to the caller.
 */
import type { ChildProcess } from 'node:child_process';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { serializeMessage } from '@modelcontextprotocol/client';
import type { Logger } from '../../core/logger.js';
import { BatchedWriter } from '../hub/batched-writer.js';
import { asJsonRpcMessage, parseJsonObjectLine } from '../hub/json-rpc-message.js';
import { reapGroup, spawnGroupChild, type ProcessSandbox, type StdioLaunch } from '../hub/group-child.js';
import { LineReader, LineTail } from '../hub/line-reader.js';
import { PROCESS_GROUPS, groupAlive, terminateGroup, waitForExit } from '../../core/process-group.js';
import type { GroupWatchdog } from '../../core/process-watchdog.js';

export interface StdioTransportOptions {
  server: string;
  launch: StdioLaunch;
  logger: Logger;
  watchdog?: GroupWatchdog;
  /** One message (one stdout line) may be at most this large. Default 256 MiB. */
  maxMessageBytes?: number;
  /** After closing stdin, how long the server may take to exit before SIGTERM. Default 500 ms. */
  eofGraceMs?: number;
  /** After SIGTERM, how long before SIGKILL. Default 2 s. */
  killGraceMs?: number;
  processSandbox?: ProcessSandbox;
}

const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024;
const SHOWN_GARBAGE_CHARS = 200;

/**
 * Sees every message from the server before the SDK does and takes the ones it owns (the
 * hub's own `tools/call` traffic, `direct-tool-calls.ts`); told when the connection closes.
 */
export interface InboundClaim {
  /** `message` is a JSON object read from the server; true: it was this claim's, the SDK never sees it. */
  claim(message: object): boolean;
  closed(): void;
}

export class StdioProcessTransport implements Transport {
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  onmessage?: Transport['onmessage'];
  claims?: InboundClaim;

  /** The last 50 stderr lines, for error reports. */
  readonly stderrTail = new LineTail(50);
  readonly #options: StdioTransportOptions;
  #child: ChildProcess | undefined;
  #writer: BatchedWriter | undefined;
  #started = false;
  #closed = false;
  #closing = false;
  #exit: string | undefined;

  constructor(options: StdioTransportOptions) {
    this.#options = options;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** `exited with code 3`, `was killed by SIGKILL`, or undefined while it runs. */
  get exitDescription(): string | undefined {
    return this.#exit;
  }

  async start(): Promise<void> {
    if (this.#child) throw new Error('The stdio transport was already started.');
    await spawnGroupChild({
      ...this.#options,
      stdin: 'pipe',
      stderrTail: this.stderrTail,
      onChild: (child) => {
        this.#child = child;
        this.#writer = new BatchedWriter(child.stdin as NonNullable<ChildProcess['stdin']>);
        child.once('close', () => this.#finish());
        this.#wireStreams(child);
      },
      onError: (error) => this.onerror?.(error),
      onExit: (description, child) => this.#onExit(child, description),
    });
    this.#started = true;
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    const writer = this.#writer;
    if (!stdin || !writer || !stdin.writable || this.#closed || this.#exit) {
      return Promise.reject(new Error(`MCP server '${this.#options.server}' is not running${this.#exit ? ` (${this.#exit})` : ''}.`));
    }
    // No per-write callback (it costs an allocation and a tick per message): a failed write
    // shows as a stream error and the server's exit, which fail the pending requests.
    return writer.write(serializeMessage(message));
  }

  /** Closes stdin, then SIGTERM to the group, then SIGKILL; resolves when the group is gone. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || !this.#started) {
      this.#finish();
      return;
    }
    this.#closing = true;
    const pid = child.pid;
    const { eofGraceMs = 500, killGraceMs = 2000 } = this.#options;
    this.#writer?.flush();
    child.stdin?.end();
    if (!(await waitForExit(child, eofGraceMs)) && pid !== undefined) {
      await terminateGroup(pid, killGraceMs);
    }
    // The leader is gone; anything it left behind in its group goes too.
    if (pid !== undefined && PROCESS_GROUPS && groupAlive(pid)) await terminateGroup(pid, killGraceMs);
    if (pid !== undefined) this.#options.watchdog?.unwatch(pid);
    this.#destroyStreams(child);
    this.#finish();
  }

  #wireStreams(child: ChildProcess): void {
    const { logger, server } = this.#options;
    const stdout = new LineReader((line) => this.#onStdoutLine(line), {
      maxLineBytes: this.#options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      onOversize: (bytes) => {
        const error = new Error(`MCP [${server}] sent a message of ${bytes} bytes, over the limit; it was dropped.`);
        logger.warn(error.message);
        this.onerror?.(error);
      },
    });
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stdout?.on('end', () => stdout.end());
    // EPIPE when the server is gone; the exit handler reports that.
    child.stdin?.on('error', (error) => logger.debug(`MCP [${server}] stdin: ${error.message}`));
  }

  #onStdoutLine(line: string): void {
    if (line.trim() === '') return;
    const value = parseJsonObjectLine(line);
    if (value !== undefined && this.claims?.claim(value)) return;
    const message = value === undefined ? undefined : asJsonRpcMessage(value);
    if (!message) {
      const shown = line.length > SHOWN_GARBAGE_CHARS ? `${line.slice(0, SHOWN_GARBAGE_CHARS)}…` : line;
      this.#options.logger.debug(`MCP [${this.#options.server}] stdout: skipped a line that is not JSON-RPC: ${shown}`);
      return;
    }
    this.onmessage?.(message);
  }

  #onExit(child: ChildProcess, description: string): void {
    this.#exit = description;
    const pid = child.pid;
    if (pid === undefined) return;
    // Children the server left in its group are ended too, unless close() is already on it.
    if (this.#closing) this.#options.watchdog?.unwatch(pid);
    else void reapGroup(pid, this.#options.killGraceMs ?? 2000, this.#options.watchdog);
    // A grandchild holding stdout open must not keep the connection half-alive.
    setTimeout(() => {
      if (!this.#closed) {
        this.#destroyStreams(child);
        this.#finish();
      }
    }, 250).unref();
  }

  #destroyStreams(child: ChildProcess): void {
    child.stdin?.destroy();
    child.stdout?.destroy();
    child.stderr?.destroy();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.claims?.closed();
    if (this.#started) this.onclose?.();
  }
}
