/**
 * The `tool_timeout` of the calls on one connection, kept by the hub rather than the SDK so
 * that it can stand still: while weft answers a request the server made during a call (an
 * elicitation a person fills in, a sampling request the model answers), the server is
 * waiting on weft, not the other way round, so that time counts against neither limit.
 * Progress restarts the idle limit; the total limit (`max_tool_timeout`) bounds a call's
 * active time.
 *
 * One Node timer serves every call of a connection ({@link CallClock}) instead of one more
 * `setTimeout` per call beside the one the SDK always arms for a request (its backstop, set
 * to the largest delay): a timer and its `clearTimeout` cost as much as the rest of the
 * hub's bookkeeping for a call, and most calls end long before their limit. The clock's timer is armed for the
 * earliest deadline and left armed when calls end; when it fires it ends the calls that
 * are due and re-arms for the next deadline.
 */

/** Node rejects timer delays above this (they become 1 ms). */
export const MAX_TIMER_MS = 2_147_483_647;

export class CallClock {
  /** Live timers, as an intrusive list: adding and removing one allocates nothing. */
  #head: CallTimer | undefined;
  #tail: CallTimer | undefined;
  #paused = false;
  #handle: NodeJS.Timeout | undefined;
  /** When the armed timer fires (performance.now() time), Infinity when none is armed. */
  #armedAt = Number.POSITIVE_INFINITY;
  readonly #fire = (): void => this.#onFire();

  /** While paused, the connection is answering the server: no call's time runs. */
  get paused(): boolean {
    return this.#paused;
  }

  /** @internal See {@link CallTimer.start}. */
  add(timer: CallTimer): void {
    // Appended, so calls due at the same moment time out in the order they started.
    timer.prev = this.#tail;
    if (this.#tail) this.#tail.next = timer;
    else {
      this.#head = timer;
      this.#handle?.ref();
    }
    this.#tail = timer;
    if (!this.#paused) timer.resume();
  }

  pause(): void {
    if (this.#paused) return;
    this.#paused = true;
    for (let timer = this.#head; timer; timer = timer.next) timer.pause();
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    for (let timer = this.#head; timer; timer = timer.next) timer.resume();
  }

  /** Stops the armed timer (the connection closed); live calls are not ended by it any more. */
  dispose(): void {
    clearTimeout(this.#handle);
    this.#handle = undefined;
    this.#armedAt = Number.POSITIVE_INFINITY;
  }

  /** @internal A timer's deadline moved to `deadline` (or it became due sooner). */
  need(deadline: number): void {
    if (deadline >= this.#armedAt) return;
    this.#arm(deadline, performance.now());
  }

  /** @internal */
  remove(timer: CallTimer): void {
    if (timer.prev) timer.prev.next = timer.next;
    else if (this.#head === timer) this.#head = timer.next;
    if (timer.next) timer.next.prev = timer.prev;
    else if (this.#tail === timer) this.#tail = timer.prev;
    timer.prev = undefined;
    timer.next = undefined;
    if (!this.#head) this.#handle?.unref();
  }

  #arm(deadline: number, now: number): void {
    clearTimeout(this.#handle);
    this.#armedAt = deadline;
    this.#handle = setTimeout(this.#fire, Math.min(MAX_TIMER_MS, Math.max(0, deadline - now)));
    // Like a timer per call, it keeps the process alive while calls run; left armed after
    // the last call ended, it must not.
    if (!this.#head) this.#handle.unref();
  }

  #onFire(): void {
    this.#handle = undefined;
    this.#armedAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    let due: CallTimer[] | undefined;
    for (let timer = this.#head; timer; timer = timer.next) {
      const deadline = timer.deadline;
      if (deadline <= now) (due ??= []).push(timer);
      else if (deadline < next) next = deadline;
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next, now);
    // Expired only after the scan: what a call does when it times out may start or stop others.
    if (due) for (const timer of due) timer.expire();
  }
}

/**
 * One call's time, on its connection's clock. Abstract, so that the call's own object (its
 * abort signal) can be its timer: one object per call rather than two and a callback.
 */
export abstract class CallTimer {
  /** @internal Neighbours in the clock's list. */
  prev: CallTimer | undefined;
  /** @internal */
  next: CallTimer | undefined;
  /** @internal When the call runs out of time (performance.now() time); Infinity while it stands still. */
  deadline = Number.POSITIVE_INFINITY;
  readonly #clock: CallClock;
  readonly #idleMs: number;
  readonly #maxMs: number | undefined;
  /** Active milliseconds spent before the current active stretch, overall and since the last progress. */
  #spent = 0;
  #spentSinceProgress = 0;
  #activeSince: number | undefined;
  #done = false;

  constructor(clock: CallClock, idleMs: number, maxMs: number | undefined) {
    this.#clock = clock;
    this.#idleMs = idleMs;
    this.#maxMs = maxMs;
  }

  /** Called once, when the call runs out of time. */
  protected abstract onTimeout(): void;

  /** Starts counting (standing still while the clock is paused). */
  start(): void {
    this.#clock.add(this);
  }

  progress(): void {
    if (this.#done) return;
    this.#settle();
    this.#spentSinceProgress = 0;
    if (this.#activeSince !== undefined) this.#schedule();
  }

  /** Ends the timing; the call can no longer time out. */
  stop(): void {
    if (this.#done) return;
    this.#done = true;
    this.deadline = Number.POSITIVE_INFINITY;
    this.#clock.remove(this);
  }

  /** @internal The clock is paused. */
  pause(): void {
    if (this.#done || this.#activeSince === undefined) return;
    this.#settle();
    this.#activeSince = undefined;
    this.deadline = Number.POSITIVE_INFINITY;
  }

  /** @internal The clock runs (again). */
  resume(): void {
    if (this.#done || this.#activeSince !== undefined) return;
    this.#activeSince = performance.now();
    this.#schedule();
  }

  /** @internal The clock found the deadline passed. */
  expire(): void {
    if (this.#done) return;
    this.stop();
    this.onTimeout();
  }

  /** Folds the current active stretch into the counters. */
  #settle(): void {
    if (this.#activeSince === undefined) return;
    const now = performance.now();
    this.#spent += now - this.#activeSince;
    this.#spentSinceProgress += now - this.#activeSince;
    this.#activeSince = now;
  }

  /** Called while active, right after `#activeSince` was set to now. */
  #schedule(): void {
    const idleLeft = this.#idleMs - this.#spentSinceProgress;
    const left = this.#maxMs === undefined ? idleLeft : Math.min(idleLeft, this.#maxMs - this.#spent);
    this.deadline = (this.#activeSince as number) + Math.max(0, left);
    this.#clock.need(this.deadline);
  }
}
