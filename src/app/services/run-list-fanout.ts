/**
 * Live changes of the runs list for many followers at once (`GET /api/v1/runs` as an SSE
 * stream, the dashboard's runs page): one reader for all of them, woken by the store's
 * change notices, reads the runs changed since its previous read and hands each follower
 * what its own filter makes of them. A hundred open lists cost one query per change, not
 * a hundred.
 *
 * Change times come from the writers' clocks and a change can become readable after one
 * stamped later (another process, another host), so every read goes back `overlapMs`
 * before the previous one began and drops what it already handed out. A follower that
 * resumes from a time gets every run changed after that time less `overlapMs`: it may see
 * a run twice, never miss one. Runs are states, not deltas, so a repeat does no harm.
 */
import { errorMessage } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { takeBuffered, type FollowerBuffer } from './follower-buffer.js';
import type { RunRecord } from '../../runs/model/run-record.js';
import { SEARCH_LIMITS, type Clock, type RunStore, type UpdatedCursor } from '../../runs/store/run-store.js';

/** How far each read looks back past the previous one; bounds the clock skew and commit delay tolerated. */
export const LIST_OVERLAP_MS = 2000;

export interface ListFollower<T> {
  /** What `pick` made of the runs changed since the previous call, oldest change first; `[]` when `ms` passed without any or `signal` aborted. */
  next(ms: number, signal: AbortSignal): Promise<T[]>;
  close(): void;
}

interface Follower<T> extends FollowerBuffer<T> {
  pick: (run: RunRecord) => T | undefined;
  /** Set until the follower's first read: it gets every run changed after this time. */
  from: number | undefined;
}

export interface RunListFanoutOptions {
  overlapMs?: number;
  clock?: Clock;
}

export class RunListFanout {
  readonly #store: Pick<RunStore, 'listRunsUpdatedAfter' | 'watchChanges'>;
  readonly #logger: Logger;
  readonly #overlapMs: number;
  readonly #clock: Clock;
  readonly #followers = new Set<Follower<unknown>>();
  /** What each run read last time looked like in the list, by id: a run read again unchanged is not handed out again. */
  #seen = new Map<string, string>();
  /** When the previous read began. */
  #readAt: number | undefined;
  #reading = false;
  #again = false;
  #stopWatching: (() => void) | undefined;

  constructor(store: Pick<RunStore, 'listRunsUpdatedAfter' | 'watchChanges'>, logger: Logger, options: RunListFanoutOptions = {}) {
    this.#store = store;
    this.#logger = logger;
    this.#overlapMs = options.overlapMs ?? LIST_OVERLAP_MS;
    this.#clock = options.clock ?? Date.now;
  }

  /**
   * Follows the runs that change from `after` (epoch ms; default now) on, less the overlap;
   * `pick` says what a changed run is to this follower (undefined: nothing to it).
   *
   * @example const follower = fanout.follow((run) => (run.status === 'failed' ? run : undefined), lastSeenTime);
   */
  follow<T>(pick: (run: RunRecord) => T | undefined, after?: number): ListFollower<T> {
    const follower: Follower<T> = { pick, from: (after ?? this.#clock()) - this.#overlapMs, buffer: [], wake: undefined };
    this.#followers.add(follower as Follower<unknown>);
    this.#stopWatching ??= this.#store.watchChanges(() => void this.#read());
    void this.#read();
    return {
      next: (ms, signal) => takeBuffered(follower, ms, signal),
      close: () => {
        this.#followers.delete(follower as Follower<unknown>);
        follower.wake?.();
        if (this.#followers.size > 0) return;
        this.#stopWatching?.();
        this.#stopWatching = undefined;
        this.#seen = new Map();
        this.#readAt = undefined;
      },
    };
  }

  /** One read at a time for everyone, again if a notice or a follower came meanwhile. */
  async #read(): Promise<void> {
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = true;
    try {
      do {
        this.#again = false;
        if (this.#followers.size > 0) await this.#readOnce();
      } while (this.#again);
    } catch (error) {
      this.#logger.warn(`runs list: ${errorMessage(error)}`);
    } finally {
      this.#reading = false;
    }
  }

  async #readOnce(): Promise<void> {
    const startedAt = this.#clock();
    // Followers that joined before this read get what they asked for; the others what changed since the previous read.
    const usual = (this.#readAt ?? startedAt) - this.#overlapMs;
    const joining = new Set([...this.#followers].filter((follower) => follower.from !== undefined));
    const from = Math.min(usual, ...[...joining].map((follower) => follower.from as number));
    const seen = new Map<string, string>();
    const woken = new Set<Follower<unknown>>();
    for (let cursor: UpdatedCursor | undefined = { updatedAt: from, id: '' }; cursor !== undefined;) {
      const page = await this.#store.listRunsUpdatedAfter(cursor, SEARCH_LIMITS.max);
      for (const run of page.runs) {
        const key = listKey(run);
        const fresh = this.#seen.get(run.id) !== key && run.updatedAt > usual;
        seen.set(run.id, key);
        for (const follower of this.#followers) {
          // A follower that joined during this read gets nothing from it: the next read (already due) serves it.
          const wanted = joining.has(follower) ? run.updatedAt > (follower.from as number) : follower.from === undefined && fresh;
          if (!wanted) continue;
          const item = follower.pick(run);
          if (item === undefined) continue;
          follower.buffer.push(item);
          woken.add(follower);
        }
      }
      cursor = page.next;
    }
    this.#seen = seen;
    this.#readAt = startedAt;
    for (const follower of joining) follower.from = undefined;
    for (const follower of woken) follower.wake?.();
  }
}

/** What a run looks like in a list, but for its time: `updatedAt` moves with every model turn. */
function listKey(run: RunRecord): string {
  return `${run.status}\u0000${run.archived}\u0000${run.parentId ?? ''}\u0000${run.currentStageId ?? ''}\u0000${run.pendingQuestionIds.length}\u0000${run.finishedAt ?? ''}\u0000${run.reason ?? ''}\u0000${run.attempt}`;
}
