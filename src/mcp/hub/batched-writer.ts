/**
 * Coalesces the messages sent to a server within one turn of the event loop into one
 * write. Each `write()` on a pipe is a syscall (and wakes the server); with many calls in
 * flight, a burst of answers read in one chunk releases a burst of new requests, and
 * writing them one by one cost more client CPU than everything else the hub does per call.
 * The batch goes out on `process.nextTick`, after the microtasks of the current turn, so
 * a lone message is delayed by no I/O wait, only by what already runs in this turn.
 */

/** The part of a `Writable` (a child's stdin) the writer uses. */
export interface LineSink {
  readonly writable: boolean;
  readonly writableNeedDrain: boolean;
  write(data: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

const SENT: Promise<void> = Promise.resolve();

export class BatchedWriter {
  readonly #sink: LineSink;
  #queued: string | undefined;
  /** One wait for the sink's next `drain`, shared by every sender held back meanwhile. */
  #drained: Promise<void> | undefined;
  readonly #flush = (): void => this.flush();

  constructor(sink: LineSink) {
    this.#sink = sink;
  }

  /**
   * Queues `data` behind what this turn already queued. Resolves at once unless the sink
   * is backed up, then on its next `drain`, so a flood of sends waits instead of piling up
   * in memory. Write failures surface as the stream's error, not here.
   */
  write(data: string): Promise<void> {
    if (this.#queued === undefined) {
      this.#queued = data;
      process.nextTick(this.#flush);
    } else {
      this.#queued += data;
    }
    if (!this.#sink.writableNeedDrain) return SENT;
    return (this.#drained ??= new Promise((resolve) =>
      this.#sink.once('drain', () => {
        this.#drained = undefined;
        resolve();
      }),
    ));
  }

  /** Writes what is queued now (before closing the sink, so nothing queued is lost). */
  flush(): void {
    const data = this.#queued;
    if (data === undefined) return;
    this.#queued = undefined;
    // A server that is gone fails its pending requests through the transport's close.
    if (this.#sink.writable) this.#sink.write(data);
  }
}
