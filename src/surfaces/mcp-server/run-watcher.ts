/**
 * Resource subscriptions: tells listeners when a subscribed `weft://runs…` resource
 * changes. Runs are executed by other processes, so the store is the only place a change
 * can be seen: while anyone is subscribed, the watcher follows the store's change notices
 * (`RunService.watchChanges`) and, on each that may concern a subscription, reads the subscribed runs' event counts (one
 * indexed lookup each) to find which resources moved. No timer runs.
 */
import { WeftError } from '../../core/errors.js';
import type { RunService } from '../../app/services/run-service.js';
import type { RunResource } from './resource-uri.js';
import { mayConcernRun, type StoreChange } from '../../runs/store/store-change.js';

export type ChangeListener = (uri: string) => void;

interface Watch {
  uri: string;
  resource: RunResource;
  listener: ChangeListener;
}

/** How many recent runs `weft://runs` shows, and the watcher compares. */
export const RECENT_RUNS = 50;

export class RunWatcher {
  readonly #runs: () => Promise<RunService>;
  readonly #watches = new Set<Watch>();
  /** Last seen state per key (`run:<id>` or `runs`). */
  readonly #seen = new Map<string, string>();
  #stopNotices: (() => void) | undefined;
  #checking = false;
  /** A notice came while a check ran: check once more after it. */
  #again = false;

  constructor(runs: () => Promise<RunService>) {
    this.#runs = runs;
  }

  get size(): number {
    return this.#watches.size;
  }

  /**
   * Starts watching `uri` (already parsed) and resolves once its current state is known,
   * so a change right after subscribing is reported. Returns the function that stops it.
   */
  async watch(uri: string, resource: RunResource, listener: ChangeListener): Promise<() => void> {
    const key = keyOf(resource);
    const runs = await this.#runs();
    // Notices first, then the first reading: a change in between is noticed and compared.
    this.#stopNotices ??= runs.watchChanges((change) => {
      if (this.#concerns(change)) void this.#check();
    });
    if (!this.#seen.has(key)) this.#seen.set(key, await this.#fingerprint(resource));
    const watch: Watch = { uri, resource, listener };
    this.#watches.add(watch);
    return () => {
      this.#watches.delete(watch);
      if (![...this.#watches].some((other) => keyOf(other.resource) === key)) this.#seen.delete(key);
      if (this.#watches.size === 0) this.close();
    };
  }

  close(): void {
    this.#stopNotices?.();
    this.#stopNotices = undefined;
  }

  /** `weft://runs` (the recent runs) may move with any run's write; a run's own resource only with its own. */
  #concerns(change: StoreChange): boolean {
    if (change.kind === 'unknown') return true;
    return [...this.#watches].some(({ resource }) => resource.kind === 'runs' || mayConcernRun(change, resource.runId));
  }

  async #check(): Promise<void> {
    if (this.#checking) {
      this.#again = true;
      return;
    }
    this.#checking = true;
    try {
      do {
        this.#again = false;
        await this.#compare();
      } while (this.#again && this.#stopNotices !== undefined);
    } finally {
      this.#checking = false;
    }
  }

  async #compare(): Promise<void> {
    const keys = new Map<string, RunResource>();
    for (const watch of this.#watches) keys.set(keyOf(watch.resource), watch.resource);
    for (const [key, resource] of keys) {
      const now = await this.#fingerprint(resource);
      if (!this.#seen.has(key) || this.#seen.get(key) === now) continue;
      this.#seen.set(key, now);
      for (const watch of [...this.#watches]) if (keyOf(watch.resource) === key) watch.listener(watch.uri);
    }
  }

  async #fingerprint(resource: RunResource): Promise<string> {
    try {
      const runs = await this.#runs();
      if (resource.kind === 'runs') {
        const page = await runs.search({ limit: RECENT_RUNS });
        return page.runs.map((run) => `${run.id}:${run.counts.events}`).join(',');
      }
      return String((await runs.get(resource.runId)).counts.events);
    } catch (error) {
      return WeftError.is(error, 'RUN_NOT_FOUND') ? 'gone' : 'unreadable';
    }
  }
}

function keyOf(resource: RunResource): string {
  return resource.kind === 'runs' ? 'runs' : `run:${resource.runId}`;
}
