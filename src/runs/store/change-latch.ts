/**
 * Waiting for the store to change, for loops that read, decide, then wait (`weft wait`,
 * `weft_run_gather`, following a run). The latch watches from its creation on, so a write
 * that lands between a read and the wait after it is never missed: the wait returns at
 * once.
 */
import type { RunStore } from './run-store.js';
import type { RunStatus } from '../model/run-status.js';
import type { StoreChange } from './store-change.js';

/** setTimeout's largest delay; longer waits are cut to it (the caller loops anyway). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * @example
 * const changes = new ChangeLatch(store, [id]);
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
  #ids: ReadonlySet<string> | undefined;
  #statuses: ReadonlyMap<string, RunStatus> | undefined;
  #wake: (() => void) | undefined;

  /** With `runIds`, only notices that may concern one of those runs count as changes. */
  constructor(store: Pick<RunStore, 'watchChanges'>, runIds?: Iterable<string>) {
    this.#ids = runIds === undefined ? undefined : new Set(runIds);
    this.#stop = store.watchChanges((change) => {
      if (!this.#counts(change)) return;
      this.#changed = true;
      this.#wake?.();
    });
  }

  /**
   * From now on, count only notices that may concern one of `runIds` (a waiter that has
   * resolved its run refs). With `statuses` (each run's status as last read, kept up to
   * date by the caller), only notices that may have moved one of them on to another status
   * or let it be claimed: for a waiter that cares about nothing else.
   */
  follow(runIds: Iterable<string>, statuses?: ReadonlyMap<string, RunStatus>): void {
    this.#ids = new Set(runIds);
    this.#statuses = statuses;
  }

  #counts(change: StoreChange): boolean {
    const ids = this.#ids;
    if (ids === undefined || change.kind === 'unknown') return true;
    const statuses = this.#statuses;
    return change.runs.some(
      (run) =>
        ids.has(run.id) && (statuses === undefined || change.claimable || run.status === undefined || run.status !== statuses.get(run.id)),
    );
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
