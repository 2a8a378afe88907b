/**
 * Waiting for the store to change, for loops that read, decide, then wait (`weft wait`,
 * `weft_run_gather`, following a run). The latch watches from its creation on, so a write
 * that lands between a read and the wait after it is never missed: the wait returns at
 * once.
 */
import type { RunStore } from './run-store.js';

/** setTimeout's largest delay; longer waits are cut to it (the caller loops anyway). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * @example
 * const changes = new ChangeLatch(store);
 * try {
 *   for (;;) {
 *     if (isTerminal((await store.getRun(id))!.status)) break;
 *     await changes.next(30_000, signal);
 *   }
 * } finally {
 *   changes.close();
 * }
 */
export class ChangeLatch {
  readonly #stop: () => void;
  #changed = false;
  #wake: (() => void) | undefined;

  constructor(store: RunStore) {
    this.#stop = store.watchChanges(() => {
      this.#changed = true;
      this.#wake?.();
    });
  }

  /**
   * Resolves `true` when the store changed since the previous call (at once if it already
   * did), `false` after `ms` without a change or when `signal` aborts.
   */
  async next(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (!this.#changed && !signal?.aborted && ms > 0) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          this.#wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, Math.min(ms, MAX_TIMER_MS));
        signal?.addEventListener('abort', done, { once: true });
        this.#wake = done;
      });
    }
    const changed = this.#changed;
    this.#changed = false;
    return changed;
  }

  /** Stops watching; a pending `next` resolves. */
  close(): void {
    this.#stop();
    this.#wake?.();
  }
}
