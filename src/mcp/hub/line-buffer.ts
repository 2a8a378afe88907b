/**
 * The bytes of one stdio line that spans chunks, kept in one growing buffer, and the
 * memory a huge line leaves behind. A 50 MB tool result arrives in ~800 chunks: keeping
 * the chunks and joining them at the end held the chunks, the joined copy and the decoded
 * string at once (3× the line before it was even parsed). Copied into one buffer as they
 * arrive, the chunks are garbage at once; the buffer is dropped when the line is decoded.
 */
import { fullGc } from '../../core/full-gc.js';

/** A line's buffer up to this size is kept for the next line; a bigger one is dropped with its line. */
const KEPT_CAPACITY = 1024 * 1024;
const FIRST_CAPACITY = 64 * 1024;
/** While a line grows, garbage is collected each time this much more of it has arrived. */
const COLLECT_EVERY = 8 * 1024 * 1024;
/** Lines from this many characters up are followed by a full garbage collection (see `releaseHugeLine`). */
export const HUGE_LINE_CHARS = 16 * 1024 * 1024;

export class LineBuffer {
  #buffer: Buffer | undefined;
  #size = 0;
  #collectAt = COLLECT_EVERY;

  get size(): number {
    return this.#size;
  }

  append(part: Buffer): void {
    const needed = this.#size + part.length;
    if (!this.#buffer || needed > this.#buffer.length) this.#grow(needed);
    part.copy(this.#buffer as Buffer, this.#size);
    this.#size = needed;
    // Each chunk, once copied, and each outgrown buffer are garbage that V8 frees only when
    // it collects, which a few small objects holding megabytes outside its heap do not make
    // it do: left alone, they pile up to the size of the line.
    if (needed >= this.#collectAt) {
      fullGc();
      this.#collectAt = needed + COLLECT_EVERY;
    }
  }

  /** The line as a string (without the CR of a CRLF); the buffer is emptied, and dropped if it was big. */
  take(): string {
    const buffer = this.#buffer;
    const size = this.#size;
    this.#size = 0;
    this.#collectAt = COLLECT_EVERY;
    if (!buffer) return '';
    if (buffer.length > KEPT_CAPACITY) this.#buffer = undefined;
    // The chunks copied since the last growth are garbage as big as a few MB each; the
    // decoded line is about to need as much memory again as the buffer holds.
    if (size >= HUGE_LINE_CHARS) fullGc();
    const end = size > 0 && buffer[size - 1] === 13 ? size - 1 : size;
    return buffer.toString('utf8', 0, end);
  }

  /** Forgets what was appended (a line over the limit), and the buffer if it was big. */
  clear(): void {
    this.#size = 0;
    this.#collectAt = COLLECT_EVERY;
    if (this.#buffer && this.#buffer.length > KEPT_CAPACITY) this.#buffer = undefined;
  }

  /** Doubles the capacity (one copy per doubling); pages of it not yet written cost no memory. */
  #grow(needed: number): void {
    let capacity = Math.max(this.#buffer?.length ?? 0, FIRST_CAPACITY);
    while (capacity < needed) capacity *= 2;
    const grown = Buffer.allocUnsafeSlow(capacity);
    this.#buffer?.copy(grown, 0, 0, this.#size);
    this.#buffer = grown;
  }
}

/**
 * Called with a huge line just decoded, before it is parsed: collects garbage so the line's
 * bytes (and the chunks they came in) are freed now rather than at V8's leisure — parsing
 * makes one more copy of the same size, and without this the process held bytes, line and
 * parsed value at once. One full collection per huge message costs milliseconds, next to
 * the hundreds it takes to read and parse one. Only where the process allows it
 * (`core/full-gc.ts`: the `weft` CLI does; a library user's process only with `--expose-gc`).
 */
export function releaseHugeLine(line: string): void {
  if (line.length >= HUGE_LINE_CHARS) fullGc();
}
