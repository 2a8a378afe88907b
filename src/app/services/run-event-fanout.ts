/**
 * Live events of runs for many followers at once (the HTTP API's SSE streams, the
 * dashboard): one reader per run, woken by the store's change notices that may concern it, reads what was
 * appended since the follower furthest behind and hands each follower the events after
 * its own cursor. A hundred browsers on one busy run cost one query per change, not a
 * hundred.
 */
import { errorMessage } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { takeBuffered, type FollowerBuffer } from './follower-buffer.js';
import type { RunEvent } from '../../runs/model/run-event.js';
import { EVENT_LIMITS, type RunStore } from '../../runs/store/run-store.js';
import { mayConcernRun } from '../../runs/store/store-change.js';

export interface EventFollower {
  /**
   * The next events after the previous call's (in order, none twice); `[]` when `ms` passed
   * without any or `signal` aborted.
   */
  next(ms: number, signal: AbortSignal): Promise<RunEvent[]>;
  close(): void;
}

interface Follower extends FollowerBuffer<RunEvent> {
  cursor: number;
  types: ReadonlySet<string> | undefined;
}

interface Feed {
  runId: string;
  followers: Set<Follower>;
  reading: boolean;
  again: boolean;
}

export class RunEventFanout {
  readonly #store: Pick<RunStore, 'listEvents' | 'watchChanges'>;
  readonly #logger: Logger;
  readonly #feeds = new Map<string, Feed>();
  #stopWatching: (() => void) | undefined;

  constructor(store: Pick<RunStore, 'listEvents' | 'watchChanges'>, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  /** @example const follower = fanout.follow(runId, lastSeenSeq); const events = await follower.next(15_000, signal); */
  follow(runId: string, afterSeq: number, types?: readonly string[]): EventFollower {
    const follower: Follower = { cursor: afterSeq, types: types ? new Set(types) : undefined, buffer: [], wake: undefined };
    let feed = this.#feeds.get(runId);
    if (!feed) {
      feed = { runId, followers: new Set(), reading: false, again: false };
      this.#feeds.set(runId, feed);
    }
    feed.followers.add(follower);
    this.#stopWatching ??= this.#store.watchChanges((change) => {
      for (const each of this.#feeds.values()) if (mayConcernRun(change, each.runId)) void this.#read(each);
    });
    void this.#read(feed);
    const current = feed;
    return {
      next: (ms, signal) => takeBuffered(follower, ms, signal),
      close: () => {
        current.followers.delete(follower);
        follower.wake?.();
        if (current.followers.size === 0 && this.#feeds.get(runId) === current) this.#feeds.delete(runId);
        if (this.#feeds.size === 0) {
          this.#stopWatching?.();
          this.#stopWatching = undefined;
        }
      },
    };
  }

  /** Reads from the follower furthest behind; one read at a time per run, again if a notice came meanwhile. */
  async #read(feed: Feed): Promise<void> {
    if (feed.reading) {
      feed.again = true;
      return;
    }
    feed.reading = true;
    try {
      do {
        feed.again = false;
        for (;;) {
          if (feed.followers.size === 0) return;
          const from = Math.min(...[...feed.followers].map((follower) => follower.cursor));
          const events = await this.#store.listEvents(feed.runId, { afterSeq: from, limit: EVENT_LIMITS.max });
          // A follower that joined during the read is further behind than `from`: the next round serves it.
          for (const follower of feed.followers) if (follower.cursor >= from) this.#deliver(follower, events);
          if (events.length < EVENT_LIMITS.max) break;
        }
      } while (feed.again);
    } catch (error) {
      this.#logger.warn(`events of run ${feed.runId}: ${errorMessage(error)}`);
    } finally {
      feed.reading = false;
    }
  }

  #deliver(follower: Follower, events: readonly RunEvent[]): void {
    let added = false;
    for (const event of events) {
      if (event.seq <= follower.cursor) continue;
      follower.cursor = event.seq;
      if (follower.types && !follower.types.has(event.type)) continue;
      follower.buffer.push(event);
      added = true;
    }
    if (added) follower.wake?.();
  }
}
