/**
 * The requests weft makes of one server's current session: tool calls (through the fast
 * path when the session has one) under the idle and maximum timeouts, other requests under
 * `tool_timeout`, and their errors phrased for weft. Owns what the calls share: the clock
 * that stands still while weft answers the server's own requests, and the origins of the
 * calls in flight, so a server's request can be filed under the stage that caused it.
 */
import type { Client, Tool as McpToolDefinition } from '@modelcontextprotocol/client';
import type { WeftError } from '../../core/errors.js';
import type { AbortLike } from '../../tools/call-abort.js';
import type { CallOrigin, ToolContext, ToolResult } from '../../tools/tool.js';
import type { McpServerConfig } from '../config/server-config.js';
import { callFailure, isConnectionLoss, timeoutError } from './call-errors.js';
import { CallSignal, toolCallOptions } from './call-signal.js';
import { CallClock } from './call-timer.js';
import { convertToolResult } from './content.js';
import type { Session } from './session.js';
import { localProcess } from './transport-factory.js';

const toolWhat = (name: string) => `tool '${name}'`;

export type CallContext = Pick<ToolContext, 'signal' | 'cancellation' | 'onProgress' | 'origin'>;

export class ServerCalls {
  readonly #config: McpServerConfig;
  /** Checks an HTTP session that a request lost the connection of (stdio sessions report their own exit). */
  readonly #probe: (session: Session) => void;
  /** Requests of the server's that weft is answering now; while any is open, call timeouts stand still. */
  #answering = 0;
  /** The tool calls' timeouts; paused while `#answering`. */
  readonly #clock = new CallClock();
  /**
   * The origins of the tool calls in flight, oldest first. MCP does not tie a server's
   * request to the call it serves (stdio has no way to), so a request goes to the stage of
   * the call started last on this server: exact whenever one stage at a time calls it.
   */
  readonly #origins: CallOrigin[] = [];
  readonly #timeoutReason = (toolName: string) => {
    const { name, toolTimeoutMs, maxToolTimeoutMs } = this.#config;
    return timeoutError({ server: name, what: toolWhat(toolName), timeoutMs: toolTimeoutMs, maxTimeoutMs: maxToolTimeoutMs });
  };

  constructor(config: McpServerConfig, probe: (session: Session) => void) {
    this.#config = config;
    this.#probe = probe;
  }

  /** The origin of the call started last that is still in flight. */
  lastOrigin(): CallOrigin | undefined {
    return this.#origins.at(-1);
  }

  async callTool(
    session: Session,
    originalName: string,
    args: Record<string, unknown>,
    context: CallContext,
    definition?: McpToolDefinition,
  ): Promise<ToolResult> {
    const origin = context.origin;
    if (origin) this.#origins.push(origin);
    const { toolTimeoutMs, maxToolTimeoutMs } = this.#config;
    // Aborted by the caller's cancellation or by the hub's own timeout.
    const signal = new CallSignal(
      this.#clock,
      { idleMs: toolTimeoutMs, maxMs: maxToolTimeoutMs },
      context.cancellation ?? context.signal,
      originalName,
      this.#timeoutReason,
    );
    signal.start();
    try {
      const direct = session.directCalls;
      const result = direct
        ? await direct.call(
            originalName,
            args,
            signal,
            context,
            definition ?? session.discovery.tools.find((tool) => tool.name === originalName),
          )
        : await session.client.callTool(
            { name: originalName, arguments: args },
            toolCallOptions(signal, context, session.built.kind, definition),
          );
      return convertToolResult(result);
    } catch (error) {
      throw this.#failure(error, session, toolWhat(originalName), signal);
    } finally {
      signal.stop();
      if (origin) this.#origins.splice(this.#origins.lastIndexOf(origin), 1);
    }
  }

  /** Runs a request on the session, bounded by `tool_timeout`, with errors phrased for weft. */
  async request<T>(
    session: Session,
    what: string,
    run: (client: Client, options: { timeout: number; signal?: AbortSignal }) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    try {
      return await run(session.client, { timeout: this.#config.toolTimeoutMs, ...(signal ? { signal } : {}) });
    } catch (error) {
      throw this.#failure(error, session, what, signal);
    }
  }

  /** Weft began (`true`) or finished answering a request of the server's. */
  answering(busy: boolean): void {
    this.#answering += busy ? 1 : -1;
    if (busy && this.#answering === 1) this.#clock.pause();
    if (!busy && this.#answering === 0) this.#clock.resume();
  }

  close(): void {
    this.#clock.dispose();
  }

  #failure(error: unknown, session: Session, what: string, signal?: AbortLike): WeftError {
    const exit = localProcess(session.built)?.exitDescription;
    const failure = callFailure(error, {
      server: this.#config.name,
      what,
      signal,
      timeoutMs: this.#config.toolTimeoutMs,
      ...(exit ? { exit } : {}),
    });
    if (session.built.kind !== 'stdio' && !signal?.aborted && isConnectionLoss(error)) this.#probe(session);
    return failure;
  }
}
