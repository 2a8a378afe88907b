/**
 * Per-call cancellation without an `AbortSignal` unless someone asks for one. On Node 20
 * creating an AbortSignal costs ≈ 5 µs and its first listener ≈ 3 µs, more than the rest
 * of what the executor does for a call; MCP tools, the bulk of calls, only need to hear
 * about an abort, which {@link CallAbort} offers as the listener subset of AbortSignal.
 */

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
  #listeners: (() => void)[] = [];
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
    if (!this.#aborted) this.#listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.#listeners.indexOf(listener);
    if (index >= 0) this.#listeners.splice(index, 1);
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}
