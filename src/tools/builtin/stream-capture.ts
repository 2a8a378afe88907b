/**
 * Bounded capture of one output stream: the first and last halves of a byte limit kept,
 * what falls between counted, and the cut made on UTF-8 character boundaries, so an
 * enormous output costs bounded memory and still decodes cleanly.
 */
/**
 * Keeps the first and last `limit / 2` bytes of a stream and counts what falls between,
 * so an enormous output costs bounded memory.
 */
export class StreamCapture {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  readonly #tail: Buffer[] = [];
  #tailBytes = 0;
  #total = 0;

  constructor(limit: number) {
    this.#headLimit = Math.ceil(limit / 2);
    this.#tailLimit = Math.floor(limit / 2);
  }

  get totalBytes(): number {
    return this.#total;
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#headBytes < this.#headLimit) {
      const take = Math.min(this.#headLimit - this.#headBytes, rest.length);
      this.#head.push(rest.subarray(0, take));
      this.#headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.#tail.push(rest);
    this.#tailBytes += rest.length;
    while (this.#tail.length > 1 && this.#tailBytes - this.#tail[0]!.length >= this.#tailLimit) {
      this.#tailBytes -= this.#tail.shift()!.length;
    }
  }

  text(): string {
    const head = Buffer.concat(this.#head);
    const tailAll = Buffer.concat(this.#tail);
    const tail = tailAll.subarray(Math.max(0, tailAll.length - this.#tailLimit));
    const omitted = this.#total - head.length - tail.length;
    if (omitted === 0) return Buffer.concat([head, tail]).toString('utf8');
    const headEnd = utf8CompletePrefix(head);
    const tailStart = utf8LeadingContinuation(tail);
    const dropped = omitted + (head.length - headEnd) + tailStart;
    return (
      head.subarray(0, headEnd).toString('utf8') +
      `\n\n[... ${dropped} bytes of output omitted (kept the first ${headEnd} and last ${tail.length - tailStart} of ${this.#total} bytes) ...]\n\n` +
      tail.subarray(tailStart).toString('utf8')
    );
  }
}

/** Length of the longest prefix of `buffer` that does not end inside a UTF-8 sequence. */
function utf8CompletePrefix(buffer: Buffer): number {
  for (let back = 1; back <= Math.min(4, buffer.length); back += 1) {
    const byte = buffer[buffer.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? buffer.length - back : buffer.length;
  }
  return buffer.length;
}

/** Number of continuation bytes at the start of `buffer` (the tail of a cut character). */
function utf8LeadingContinuation(buffer: Buffer): number {
  let count = 0;
  while (count < Math.min(3, buffer.length) && (buffer[count]! & 0xc0) === 0x80) count += 1;
  return count;
}
