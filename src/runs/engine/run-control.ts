/**
 * What other processes tell a running run: cancel, interrupt, resume, answers, messages
 * and signals arrive as events in the store. One watcher per run reads new events of
 * those types and wakes whoever waits on them; a runner never has to re-read the log.
 * It reads only when the store may hold something it has not seen: a change notice that
 * names this run past the part of the log already read (or cannot say), so notices about
 * other runs — and about this runner's own appends — cost nothing.
 */
import { ENGINE_EVENT, RUN_EVENT } from '../model/event-types.js';
import { WeftError } from '../../core/errors.js';
import type { JsonValue } from '../model/json.js';
import { type RunEvent } from '../model/run-event.js';
import type { RunStore } from '../store/run-store.js';
import { noticedHead, type StoreChange } from '../store/store-change.js';

const WATCHED = [
  ENGINE_EVENT.cancelRequested,
  ENGINE_EVENT.interruptRequested,
  ENGINE_EVENT.resumeRequested,
  ENGINE_EVENT.messageSent,
  ENGINE_EVENT.signalSent,
  RUN_EVENT.questionAnswered,
];

const WATCHED_TYPES = new Set<string>(WATCHED);

type Listener = (event: RunEvent) => void;

export class RunControl {
  readonly #store: RunStore;
  readonly #runId: string;
  readonly #pollMs: number;
  readonly #listeners = new Set<Listener>();
  #afterSeq: number;
  #timer: NodeJS.Timeout | undefined;
  #stopWatching: (() => void) | undefined;
  /** The run's log has been read up to this seq: a notice about another run's write costs one row read, not a scan. */
  #scannedTo = 0;
  /** The read on its way, if any. */
  #reading: Promise<void> | undefined;
  #again = false;
  /** The store may hold events past `#scannedTo` (nothing has been read yet, or a notice said so). */
  #stale = true;
  cancelReason: string | undefined;
  cancelRequested = false;
  interruptRequested = false;
  readonly answers = new Map<string, JsonValue>();
  /** Signals no wait stage has claimed yet, per name, oldest first: one sent before its stage began to wait is kept for it. */
  readonly #signals = new Map<string, { data: JsonValue }[]>();

  constructor(store: RunStore, runId: string, afterSeq: number, pollMs: number) {
    this.#store = store;
    this.#runId = runId;
    this.#afterSeq = afterSeq;
    this.#pollMs = pollMs;
  }

  /**
   * Starts watching. `read`: the run's log from its start as the runner just read it, taken
   * as scanned, so only the head is read once more (a write may have landed before the
   * watch was in place, its notice unheard), and no log scan unless it moved.
   */
  start(read?: readonly RunEvent[]): void {
    const last = read?.at(-1);
    if (read !== undefined && last !== undefined && last.seq === read.length) {
      for (const event of read) if (event.seq > this.#afterSeq && WATCHED_TYPES.has(event.type)) this.#take(event);
      this.#scannedTo = last.seq;
    }
    // Answers, cancels and messages come from other processes: read them when the store
    // says this run changed. The store tells `unknown` on its own safety tick, for notices
    // that never come; the timer retries a read that failed.
    this.#stopWatching = this.#store.watchChanges((change) => this.#noticed(change));
    this.#timer = setInterval(() => void this.catchUp(), this.#pollMs);
    this.#timer.unref();
    if (this.#scannedTo > 0) void this.poll();
  }

  stop(): void {
    this.#stopWatching?.();
    clearInterval(this.#timer);
    this.#listeners.clear();
  }

  #noticed(change: StoreChange): void {
    const head = noticedHead(change, this.#runId);
    if (head === undefined || (head !== 'unknown' && head <= this.#scannedTo)) return;
    this.#stale = true;
    void this.poll();
  }

  /**
   * Reads new control events if a change notice (or the start, or a failed read) said
   * there may be some, or waits for the read a notice started: the run loop calls it
   * before every stage, the timer now and then.
   */
  async catchUp(): Promise<void> {
    if (this.#stale) await this.poll();
    else await this.#reading;
  }

  /** Reads new control events now (or, when a read is on its way, once more after it). */
  poll(): Promise<void> {
    // A notice during a read may be about a write the read missed: read once more after it.
    if (this.#reading !== undefined) {
      this.#again = true;
      return this.#reading;
    }
    this.#reading = this.#read().finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  async #read(): Promise<void> {
    try {
      do {
        this.#again = false;
        this.#stale = false;
        const head = (await this.#store.headSeq(this.#runId)) ?? 0;
        if (head <= this.#scannedTo) continue;
        for (;;) {
          const events = await this.#store.listEvents(this.#runId, {
            afterSeq: Math.max(this.#afterSeq, this.#scannedTo),
            beforeSeq: head + 1,
            types: WATCHED,
            limit: 500,
          });
          for (const event of events) this.#take(event);
          if (events.length < 500) break;
        }
        this.#scannedTo = Math.max(this.#scannedTo, head);
      } while (this.#again);
    } catch {
      // A transient store error: the next tick tries again.
      this.#stale = true;
    }
  }

  /**
   * Events this runner just appended need no scan when they follow the scanned part of the
   * log directly (nothing else was written in between) and none is a watched type: the
   * change notice of each own write then costs one row read instead of a log scan.
   */
  skipOwn(appended: readonly RunEvent[]): void {
    const first = appended[0];
    const last = appended.at(-1);
    if (!first || !last || first.seq !== this.#scannedTo + 1) return;
    if (appended.some((event) => WATCHED_TYPES.has(event.type))) return;
    this.#scannedTo = last.seq;
  }

  #take(event: RunEvent): void {
    this.#afterSeq = Math.max(this.#afterSeq, event.seq);
    switch (event.type) {
      case ENGINE_EVENT.cancelRequested:
        this.cancelRequested = true;
        this.cancelReason = typeof event.payload.reason === 'string' ? event.payload.reason : undefined;
        break;
      case ENGINE_EVENT.interruptRequested:
        this.interruptRequested = true;
        break;
      case ENGINE_EVENT.resumeRequested:
        this.interruptRequested = false;
        break;
      case RUN_EVENT.questionAnswered:
        this.answers.set(String(event.payload.questionId), event.payload.answer ?? null);
        break;
      case ENGINE_EVENT.signalSent: {
        const name = String(event.payload.name);
        this.#signals.set(name, [...(this.#signals.get(name) ?? []), { data: event.payload.data ?? null }]);
        break;
      }
      default:
        break;
    }
    for (const listener of [...this.#listeners]) listener(event);
  }

  /** Resolves with the first watched event that `matches`; rejects with `TOOL_CANCELLED` on abort. */
  waitFor<T>(matches: (event: RunEvent) => T | undefined, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        this.#listeners.delete(listener);
        reject(new WeftError('TOOL_CANCELLED', 'Cancelled'));
      };
      const listener: Listener = (event) => {
        const value = matches(event);
        if (value === undefined) return;
        this.#listeners.delete(listener);
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#listeners.add(listener);
    });
  }

  /**
   * Wakes on any watched event (or abort); for the run loop, which aborts it after every
   * stage that ends: resolving instead of rejecting spares an error (and its stack) each time.
   */
  next(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const wake = () => {
        this.#listeners.delete(wake);
        signal.removeEventListener('abort', wake);
        resolve();
      };
      signal.addEventListener('abort', wake, { once: true });
      this.#listeners.add(wake);
    });
  }

  /** Claims the oldest unclaimed signal `name` (possibly sent before the caller began to wait), else waits for one; each signal releases one waiter. */
  async signal(name: string, abort: AbortSignal): Promise<JsonValue> {
    const claim = () => this.#signals.get(name)?.shift();
    const ready = claim();
    if (ready) return ready.data;
    const arrived = await this.waitFor(
      (event) => (event.type === ENGINE_EVENT.signalSent && event.payload.name === name ? claim() : undefined),
      abort,
    );
    return arrived.data;
  }

  /** An answer already given (possibly before this runner started), else waits for it. */
  async answer(questionId: string, signal: AbortSignal): Promise<JsonValue> {
    if (this.answers.has(questionId)) return this.answers.get(questionId)!;
    return this.waitFor(
      (event) =>
        event.type === RUN_EVENT.questionAnswered && event.payload.questionId === questionId ? (event.payload.answer ?? null) : undefined,
      signal,
    );
  }
}
