/**
 * The `tool_timeout` of one call, kept by the hub rather than the SDK so that it can stand
 * still: while weft answers a request the server made during the call (an elicitation a
 * person fills in, a sampling request the model answers), the server is waiting on weft,
 * not the other way round, so that time counts against neither limit. Progress restarts
 * the idle limit; the total limit (`max_tool_timeout`) bounds the call's active time.
 */
export class CallTimer {
  readonly #idleMs: number;
  readonly #maxMs: number | undefined;
  readonly #onTimeout: () => void;
  #timer: NodeJS.Timeout | undefined;
  /** Active milliseconds spent before the current active stretch, overall and since the last progress. */
  #spent = 0;
  #spentSinceProgress = 0;
  #activeSince: number | undefined;
  #done = false;

  constructor(idleMs: number, maxMs: number | undefined, onTimeout: () => void) {
    this.#idleMs = idleMs;
    this.#maxMs = maxMs;
    this.#onTimeout = onTimeout;
  }

  /** Starts counting, unless the connection is answering the server right now. */
  start(paused: boolean): void {
    if (!paused) this.resume();
  }

  progress(): void {
    if (this.#done) return;
    this.#settle();
    this.#spentSinceProgress = 0;
    if (this.#activeSince !== undefined) this.#schedule();
  }

  pause(): void {
    if (this.#done || this.#activeSince === undefined) return;
    this.#settle();
    this.#activeSince = undefined;
    clearTimeout(this.#timer);
  }

  resume(): void {
    if (this.#done || this.#activeSince !== undefined) return;
    this.#activeSince = performance.now();
    this.#schedule();
  }

  stop(): void {
    this.#done = true;
    clearTimeout(this.#timer);
  }

  /** Folds the current active stretch into the counters. */
  #settle(): void {
    if (this.#activeSince === undefined) return;
    const now = performance.now();
    this.#spent += now - this.#activeSince;
    this.#spentSinceProgress += now - this.#activeSince;
    this.#activeSince = now;
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    const idleLeft = this.#idleMs - this.#spentSinceProgress;
    const left = this.#maxMs === undefined ? idleLeft : Math.min(idleLeft, this.#maxMs - this.#spent);
    this.#timer = setTimeout(() => {
      this.#done = true;
      this.#onTimeout();
    }, Math.max(0, left));
  }
}
