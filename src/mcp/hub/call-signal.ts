/**
 * The abort signal the hub hands the SDK for one tool call: aborted when the caller
 * cancels the call or when it runs out of `tool_timeout`. One object per call, with no
 * AbortController and no relay closure: the SDK only listens on a signal (`aborted`,
 * `reason`, add/removeEventListener), so listeners go straight onto the caller's
 * cancellation, and the call's own timeout calls them itself. Also the rest of what the
 * hub hands the SDK with a `tools/call` ({@link toolCallOptions}).
 */
import type { CallToolRequestOptions, Tool as McpToolDefinition } from '@modelcontextprotocol/client';
import type { AbortLike } from '../../tools/call-abort.js';
import type { ToolContext } from '../../tools/tool.js';
import { CallTimer, MAX_TIMER_MS, type CallClock } from './call-timer.js';
import type { BuiltTransport } from './transport-factory.js';

/** Builds the reason a call that timed out is aborted with; shared by all calls of a connection. */
export type TimeoutReason = (toolName: string) => unknown;

/** Also the call's timer: its timeout aborts it. */
export class CallSignal extends CallTimer implements AbortLike {
  readonly #caller: AbortLike;
  readonly #toolName: string;
  readonly #timeoutReason: TimeoutReason;
  #timedOut = false;
  #reason: unknown;
  /** The SDK adds one listener per call; more are kept, but need an array. */
  #listener: (() => void) | undefined;
  #moreListeners: (() => void)[] | undefined;

  constructor(
    clock: CallClock,
    limits: { idleMs: number; maxMs: number | undefined },
    caller: AbortLike,
    toolName: string,
    timeoutReason: TimeoutReason,
  ) {
    super(clock, limits.idleMs, limits.maxMs);
    this.#caller = caller;
    this.#toolName = toolName;
    this.#timeoutReason = timeoutReason;
  }

  get aborted(): boolean {
    return this.#timedOut || this.#caller.aborted;
  }

  get reason(): unknown {
    return this.#timedOut ? this.#reason : this.#caller.reason;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    // Like AbortSignal: a listener added after the abort is never called.
    if (this.aborted) return;
    // As in CallAbort: once there is an array, later listeners go there, so they run in the order added.
    if (this.#listener === undefined && this.#moreListeners === undefined) this.#listener = listener;
    else (this.#moreListeners ??= []).push(listener);
    this.#caller.addEventListener('abort', listener, { once: true });
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.#caller.removeEventListener('abort', listener);
    if (this.#listener === listener) this.#listener = undefined;
    else if (this.#moreListeners) {
      const index = this.#moreListeners.indexOf(listener);
      if (index >= 0) this.#moreListeners.splice(index, 1);
    }
  }

  /** The call ran out of time: aborts it, unless the caller got there first. */
  protected onTimeout(): void {
    if (this.aborted) return;
    this.#timedOut = true;
    this.#reason = this.#timeoutReason(this.#toolName);
    const listeners = [this.#listener, ...(this.#moreListeners ?? [])];
    this.#listener = undefined;
    this.#moreListeners = undefined;
    for (const listener of listeners) {
      if (!listener) continue;
      this.#caller.removeEventListener('abort', listener);
      listener();
    }
  }
}

/** The SDK's request limit (the largest a Node timer takes): it never fires before the hub's own clock. */
const SDK_TIMEOUT_BACKSTOP_MS = MAX_TIMER_MS;

/** What the hub hands the SDK with a `tools/call`: its signal, its progress handling, and the listed definition when that can stand in for a lookup. */
export function toolCallOptions(
  signal: CallSignal,
  context: Pick<ToolContext, 'onProgress'>,
  transport: BuiltTransport['kind'],
  definition: McpToolDefinition | undefined,
): CallToolRequestOptions {
  return {
    // The hub's clock keeps the time; the SDK's own limit only backs it up.
    timeout: SDK_TIMEOUT_BACKSTOP_MS,
    signal: signal as unknown as AbortSignal,
    // Always asked for: progress is what extends the timeout, forwarded or not.
    onprogress: (progress) => {
      signal.progress();
      context.onProgress?.({ progress: progress.progress, total: progress.total, message: progress.message });
    },
    toolDefinition: definition && canSkipLookup(definition, transport) ? definition : undefined,
  };
}

/**
 * Whether the SDK may be handed the tool's listed definition instead of looking it up in
 * its response cache, which costs a few µs and allocations per call (cache keys are
 * JSON-encoded per lookup). The definition serves two things: output-schema validation,
 * which the SDK compiles anew for a definition passed in (so tools with an output schema
 * keep the cached, compiled-once path), and header mirroring with its refetch-and-retry on
 * a mismatch, which only exists over HTTP (a sandbox server is reached over HTTP too).
 */
function canSkipLookup(definition: McpToolDefinition, transport: BuiltTransport['kind']): boolean {
  return definition.outputSchema === undefined && transport === 'stdio';
}
