/**
 * Per-call cancellation without an `AbortSignal` unless someone asks for one. On Node 20
 * creating an AbortSignal costs ≈ 5 µs and its first listener ≈ 3 µs, more than the rest
 * of what the executor does for a call; MCP tools, the bulk of calls, only need to hear
 * about an abort, which {@link CallAbort} offers as the listener subset of AbortSignal.
 */

import type { Logger } from '../core/logger.js';
import type { PreparedSandbox } from '../core/sandbox/sandbox-provider.js';
import type { CallOrigin, FileReadTracker, ToolContext, ToolProgress } from './tool.js';
import type { RealRoots } from './tool.js';

/** The members of `AbortSignal` that code listening for an abort uses (an AbortSignal is one). */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * One call's abort: listeners are plain functions, each called once; `signal` makes a real
 * AbortSignal on first use (already aborted if the call was).
 *
 * @example const abort = new CallAbort(); abort.addEventListener('abort', stop); abort.abort(new Error('timeout'));
 */
export class CallAbort implements AbortLike {
  #aborted = false;
  #reason: unknown;
  /** Most calls get one listener (the tool's); an array is made only for more. */
  #listener: (() => void) | undefined;
  #moreListeners: (() => void)[] | undefined;
  #controller: AbortController | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    // Like AbortSignal: a listener added after the abort is never called.
    if (this.#aborted) return;
    if (this.#listener === undefined && this.#moreListeners === undefined) this.#listener = listener;
    else (this.#moreListeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.#listener === listener) {
      this.#listener = undefined;
      return;
    }
    const more = this.#moreListeners;
    const index = more ? more.indexOf(listener) : -1;
    if (index >= 0) more?.splice(index, 1);
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const first = this.#listener;
    const more = this.#moreListeners;
    this.#listener = undefined;
    this.#moreListeners = undefined;
    // In the order they were added: once there is an array, later listeners go there.
    first?.();
    if (more) for (const listener of more) listener();
  }
}

/**
 * One call's `ToolContext` over its {@link CallAbort}, with `signal` made on first read. A
 * class rather than an object literal with a `signal` getter: V8 builds such a literal in
 * dictionary mode, with a fresh getter closure, on every call.
 */
export class CallContext implements ToolContext {
  readonly workspaceRoot: string;
  readonly cancellation: CallAbort;
  readonly readFiles: FileReadTracker;
  readonly logger: Logger;
  readonly onProgress: ((progress: ToolProgress) => void) | undefined;
  readonly realRoots: RealRoots | undefined;
  readonly sandbox: PreparedSandbox | undefined;
  readonly origin: CallOrigin | undefined;

  constructor(parts: {
    workspaceRoot: string;
    cancellation: CallAbort;
    readFiles: FileReadTracker;
    logger: Logger;
    onProgress?: ((progress: ToolProgress) => void) | undefined;
    realRoots?: RealRoots;
    sandbox?: PreparedSandbox;
    origin?: CallOrigin | undefined;
  }) {
    this.origin = parts.origin;
    this.workspaceRoot = parts.workspaceRoot;
    this.sandbox = parts.sandbox;
    this.realRoots = parts.realRoots;
    this.cancellation = parts.cancellation;
    this.readFiles = parts.readFiles;
    this.logger = parts.logger;
    this.onProgress = parts.onProgress;
  }

  get signal(): AbortSignal {
    return this.cancellation.signal;
  }
}
