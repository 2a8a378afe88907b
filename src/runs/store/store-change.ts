/**
 * What a change notice says (`RunStore.watchChanges`): which runs were written, with the
 * head seq each was left at, and whether a run may have become claimable — or that the
 * store cannot say (`unknown`: a safety tick, a reconnect, another process's SQLite
 * commit, a change to the MCP server catalogue), when anything may have changed. Naming
 * the runs is what lets a runner's watcher, a waiter or a worker's claim loop skip a read
 * when a notice is about other runs: with many runs in many processes, a notice per write
 * that everyone answers with a read costs every process more as processes are added.
 */
import type { RunStatus } from '../model/run-status.js';

/** One run a notice names: its id and, when the store knows them, its newest event's seq and its status after the write. */
export interface RunChange {
  readonly id: string;
  readonly headSeq?: number;
  readonly status?: RunStatus;
}

export type StoreChange =
  | {
      readonly kind: 'runs';
      readonly runs: readonly RunChange[];
      /** A run may have become claimable: created or moved to `queued`, or its lease released or ended. */
      readonly claimable: boolean;
    }
  | { readonly kind: 'unknown' };

export const UNKNOWN_CHANGE: StoreChange = Object.freeze({ kind: 'unknown' });

/** Told that the store may have changed, and what it knows about the change. */
export type StoreChangeListener = (change: StoreChange) => void;

/** True when `change` may concern run `id` (it names it, or cannot say). */
export function mayConcernRun(change: StoreChange, id: string): boolean {
  return change.kind === 'unknown' || change.runs.some((run) => run.id === id);
}

/** True when `change` may concern any of `ids`. */
export function mayConcernAny(change: StoreChange, ids: ReadonlySet<string>): boolean {
  return change.kind === 'unknown' || change.runs.some((run) => ids.has(run.id));
}

/** True when a run may have become claimable (a worker should try a claim). */
export function mayBeClaimable(change: StoreChange): boolean {
  return change.kind === 'unknown' || change.claimable;
}

/**
 * The head seq `change` says run `id` reached: a number when the notice names the run with
 * its head, `undefined` when it does not name the run, `'unknown'` when the store cannot say.
 */
export function noticedHead(change: StoreChange, id: string): number | 'unknown' | undefined {
  if (change.kind === 'unknown') return 'unknown';
  let head: number | undefined;
  for (const run of change.runs) {
    if (run.id !== id) continue;
    if (run.headSeq === undefined) return 'unknown';
    head = Math.max(head ?? 0, run.headSeq);
  }
  return head;
}

/** Whether moving a run from `from` to `to` may have left it claimable. */
export function becameClaimable(from: RunStatus | undefined, to: RunStatus): boolean {
  return to === 'queued' && from !== 'queued';
}

/**
 * Gathers the writes of one stretch (a turn of the event loop) into one notice: each run
 * once with its highest head, claimable if any write made a run so, unknown if any was.
 */
export class ChangeCollector {
  #runs = new Map<string, { headSeq?: number; status?: RunStatus }>();
  #claimable = false;
  #unknown = false;

  get empty(): boolean {
    return this.#runs.size === 0 && !this.#claimable && !this.#unknown;
  }

  /** Run `id` was written (`change`: its head and status after, when known). */
  run(change: RunChange, claimable = false): void {
    this.#claimable ||= claimable;
    const before = this.#runs.get(change.id);
    if (before === undefined) {
      this.#runs.set(change.id, { headSeq: change.headSeq, status: change.status });
      return;
    }
    // Of two writes, the one at the higher head is the later; without heads, a status both agree on stands.
    const ordered = before.headSeq !== undefined && change.headSeq !== undefined;
    const later = ordered && change.headSeq! >= before.headSeq! ? change : before;
    this.#runs.set(change.id, {
      headSeq: ordered ? later.headSeq : undefined,
      status: ordered ? later.status : before.status === change.status ? change.status : undefined,
    });
  }

  /** Adds what another notice said. */
  merge(change: StoreChange): void {
    if (change.kind === 'unknown') return this.unknown();
    for (const run of change.runs) this.run(run);
    this.#claimable ||= change.claimable;
  }

  unknown(): void {
    this.#unknown = true;
  }

  /** The notice for what was gathered (undefined when nothing was), and a fresh start. */
  take(): StoreChange | undefined {
    if (this.empty) return undefined;
    const runs = [...this.#runs].map(([id, { headSeq, status }]) => ({
      id,
      ...(headSeq === undefined ? {} : { headSeq }),
      ...(status === undefined ? {} : { status }),
    }));
    const change: StoreChange = this.#unknown ? UNKNOWN_CHANGE : { kind: 'runs', runs, claimable: this.#claimable };
    this.#runs = new Map();
    this.#claimable = false;
    this.#unknown = false;
    return change;
  }
}

/**
 * The listeners of one store. Each registration is its own entry, so one function watched
 * twice is told twice and stops once per stop; a listener stopped while others are being
 * told is not told.
 */
export class ChangeListeners {
  readonly #entries = new Set<{ listener: StoreChangeListener }>();
  readonly #soon = new ChangeCollector();
  #telling = false;
  #closed = false;

  get size(): number {
    return this.#entries.size;
  }

  add(listener: StoreChangeListener, onEmpty?: () => void): () => void {
    if (this.#closed) return () => {};
    const entry = { listener };
    this.#entries.add(entry);
    return () => {
      if (this.#entries.delete(entry) && this.#entries.size === 0) onEmpty?.();
    };
  }

  tell(change: StoreChange): void {
    for (const entry of [...this.#entries]) if (this.#entries.has(entry)) entry.listener(change);
  }

  /** Tells `change` after this turn of the event loop, as one notice with the others told meanwhile. */
  tellSoon(change: StoreChange): void {
    if (this.#entries.size === 0) return;
    this.#soon.merge(change);
    if (this.#telling) return;
    this.#telling = true;
    setImmediate(() => {
      this.#telling = false;
      const told = this.#soon.take();
      if (told !== undefined) this.tell(told);
    });
  }

  close(): void {
    this.#closed = true;
    this.#entries.clear();
  }
}
