/**
 * Splits a byte stream into lines without re-copying what it has buffered (a 50 MB
 * message arrives in thousands of chunks), and with a bound on the length of one line.
 */
import { LineBuffer, releaseHugeLine } from './line-buffer.js';

export interface LineReaderOptions {
  /** Longer lines are dropped whole; `onOversize` says so once per dropped line. */
  maxLineBytes: number;
  onOversize?: (bytes: number) => void;
}

export class LineReader {
  readonly #onLine: (line: string) => void;
  readonly #options: LineReaderOptions;
  readonly #line = new LineBuffer();
  #discarding = false;
  #discarded = 0;

  constructor(onLine: (line: string) => void, options: LineReaderOptions) {
    this.#onLine = onLine;
    this.#options = options;
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) {
        this.#append(chunk.subarray(start));
        return;
      }
      if (this.#line.size === 0 && !this.#discarding) this.#emitWhole(chunk, start, newline);
      else {
        this.#append(chunk.subarray(start, newline));
        this.#emit();
      }
      start = newline + 1;
    }
  }

  /** Emits what is left as a last line (a stream that ends without a newline). */
  end(): void {
    if (this.#line.size > 0 || this.#discarding) this.#emit();
  }

  #append(part: Buffer): void {
    if (part.length === 0) return;
    if (this.#discarding) {
      this.#discarded += part.length;
      return;
    }
    if (this.#line.size + part.length > this.#options.maxLineBytes) {
      this.#discarding = true;
      this.#discarded = this.#line.size + part.length;
      this.#line.clear();
      return;
    }
    this.#line.append(part);
  }

  /** A line that lies whole in one chunk (most do): decoded in place, with no Buffer view made for it. */
  #emitWhole(chunk: Buffer, start: number, newline: number): void {
    const end = newline > start && chunk[newline - 1] === 13 ? newline - 1 : newline;
    if (newline - start > this.#options.maxLineBytes) this.#options.onOversize?.(newline - start);
    else this.#onLine(chunk.toString('utf8', start, end));
  }

  #emit(): void {
    if (this.#discarding) {
      this.#discarding = false;
      this.#options.onOversize?.(this.#discarded);
      this.#discarded = 0;
      return;
    }
    const line = this.#line.take();
    releaseHugeLine(line);
    this.#onLine(line);
  }
}

/** The last `limit` lines of a stream, each cut to `maxLineLength` characters, for error reports. */
export class LineTail {
  readonly #lines: string[] = [];
  readonly #limit: number;
  readonly #maxLineLength: number;

  constructor(limit = 50, maxLineLength = 500) {
    this.#limit = limit;
    this.#maxLineLength = maxLineLength;
  }

  add(line: string): void {
    this.#lines.push(line.length > this.#maxLineLength ? `${line.slice(0, this.#maxLineLength)}…` : line);
    if (this.#lines.length > this.#limit) this.#lines.shift();
  }

  lines(): string[] {
    return [...this.#lines];
  }

  clear(): void {
    this.#lines.length = 0;
  }
}
