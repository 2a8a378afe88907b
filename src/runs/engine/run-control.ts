/**
 * What other processes tell a running run: cancel, interrupt, resume, answers, messages
 * and signals arrive as events in the store. One watcher per run reads new events of
 * those types and wakes whoever waits on them; a runner never has to re-read the log.
 */
import { ENGINE_EVENT, RUN_EVENT } from '../model/event-types.js';
import { WeftError } from '../../core/errors.js';
import type { JsonValue } from '../model/json.js';
import { type RunEvent } from '../model/run-event.js';
import type { RunStore } from '../store/run-store.js';

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
  #polling = false;
  #again = false;
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

  start(): void {
    // Answers, cancels and messages come from other processes: read them when the store
    // changes; the timer stays as a safety net for notices that never come.
    this.#stopWatching = this.#store.watchChanges(() => void this.poll());
    this.#timer = setInterval(() => void this.poll(), this.#pollMs);
    this.#timer.unref();
  }

  stop(): void {
    this.#stopWatching?.();
    clearInterval(this.#timer);
    this.#listeners.clear();
  }

  /** Reads new control events now (also called on a timer). */
  async poll(): Promise<void> {
    // A notice during a read may be about a write the read missed: read once more after it.
    if (this.#polling) {
      this.#again = true;
      return;
    }
    this.#polling = true;
    try {
      do {
        this.#again = false;
        const head = (await this.#store.headSeq(this.#runId)) ?? 0;
        if (head <= this.#scannedTo) continue;
        for (;;) {
          const events = await this.#store.listEvents(this.#runId, { afterSeq: Math.max(this.#afterSeq, this.#scannedTo), beforeSeq: head + 1, types: WATCHED, limit: 500 });
          for (const event of events) this.#take(event);
          if (events.length < 500) break;
        }
        this.#scannedTo = Math.max(this.#scannedTo, head);
      } while (this.#again);
    } catch {
      // A transient store error: the next tick tries again.
    } finally {
      this.#polling = false;
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
    const arrived = await this.waitFor((event) => (event.type === ENGINE_EVENT.signalSent && event.payload.name === name ? claim() : undefined), abort);
    return arrived.data;
  }

  /** An answer already given (possibly before this runner started), else waits for it. */
  async answer(questionId: string, signal: AbortSignal): Promise<JsonValue> {
    if (this.answers.has(questionId)) return this.answers.get(questionId)!;
    return this.waitFor((event) => (event.type === RUN_EVENT.questionAnswered && event.payload.questionId === questionId ? (event.payload.answer ?? null) : undefined), signal);
  }
}
