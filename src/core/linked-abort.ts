/**
 * A signal that aborts when `parent` does or when its owner aborts it, for a wait that a
 * long-lived signal (a worker's stop) must also end. `AbortSignal.any` does the same, but on
 * Node 20 every call leaves a WeakRef in the parent's set of dependants for as long as the
 * parent lives: a worker polling every few hundred milliseconds kept ≈ 18,000 of them an hour
 * (seen in `weft serve`'s heap in the soak). Here the parent's listener goes with `dispose`.
 */
export interface LinkedAbort {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
  /** Stops following the parent; call it once the wait is over. */
  dispose(): void;
}

export function linkedAbort(parent: AbortSignal): LinkedAbort {
  const controller = new AbortController();
  const follow = () => controller.abort(parent.reason);
  if (parent.aborted) follow();
  else parent.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    dispose: () => parent.removeEventListener('abort', follow),
  };
}
