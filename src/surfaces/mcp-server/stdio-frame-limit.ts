/**
 * The size bound of one stdio frame (one line of JSON-RPC), between stdin and the SDK's
 * stdio transport. The SDK's own bound (10 MB) closes its transport when a line crosses
 * it, leaving a process that reads nothing more and answers nothing: every later request
 * of the client hangs. Here a line over the bound is dropped instead — the bytes already
 * passed on are ended with a newline, which the SDK skips as unparseable — and its sender
 * gets an Invalid Request answer carrying the request's id, read from the line's first
 * or last bytes, so the client learns why and the connection goes on.
 */
import { Transform, type TransformCallback } from 'node:stream';

type RequestId = string | number | null;

/** The bound on one stdio message: the same as on an HTTP request body (node-http-bridge.ts). */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** How much of an oversized line's head and tail is kept to find its id. */
const KEPT_BYTES = 512;

const NEWLINE = 0x0a;

/** An id written first (`{"jsonrpc":"2.0","id":…`) or last (`…,"id":…}`), as clients write them. */
const HEAD_ID = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,256}")\s*[,}]/;
const TAIL_ID = /[{,]\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,256}")\s*\}\s*$/;

/** The request id of a JSON-RPC line seen only by its first and last bytes; null when neither shows one. */
export function requestIdOf(head: string, tail: string): RequestId {
  const match = HEAD_ID.exec(head) ?? TAIL_ID.exec(tail);
  if (!match?.[1]) return null;
  try {
    const id = JSON.parse(match[1]) as unknown;
    return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : null;
  } catch {
    return null;
  }
}

export interface OversizedAnswer {
  jsonrpc: '2.0';
  id: RequestId;
  error: { code: number; message: string; data: { code: 'TOO_LARGE'; limit_bytes: number } };
}

export class StdioFrameLimit extends Transform {
  /** Bytes of the current line seen so far. */
  #lineBytes = 0;
  /** Inside a line over the bound: its bytes are dropped until its newline. */
  #dropping = false;
  #head: Buffer = Buffer.alloc(0);
  #tail: Buffer = Buffer.alloc(0);

  constructor(
    private readonly limitBytes: number,
    private readonly answer: (response: OversizedAnswer) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      this.#take(chunk.subarray(start, end), newline !== -1);
      start = end;
    }
    done();
  }

  /** One piece of a line, `complete` when it ends with the line's newline. */
  #take(piece: Buffer, complete: boolean): void {
    if (this.#head.length < KEPT_BYTES) this.#head = Buffer.concat([this.#head, piece.subarray(0, KEPT_BYTES - this.#head.length)]);
    this.#lineBytes += piece.length;
    if (!this.#dropping && this.#lineBytes > this.limitBytes) {
      this.#dropping = true;
      // Ends what the SDK already holds of this line: it skips an unparseable line.
      this.push(Buffer.from('\n'));
    }
    if (this.#dropping) {
      this.#tail = Buffer.concat([this.#tail, piece]).subarray(-KEPT_BYTES);
      if (complete) {
        const id = requestIdOf(this.#head.toString('utf8'), this.#tail.toString('utf8'));
        this.answer({
          jsonrpc: '2.0',
          id,
          error: {
            code: -32600,
            message: `Request larger than ${this.limitBytes} bytes: send less per message (e.g. long texts as files).`,
            data: { code: 'TOO_LARGE', limit_bytes: this.limitBytes },
          },
        });
      }
    } else this.push(piece);
    if (complete) {
      this.#lineBytes = 0;
      this.#dropping = false;
      this.#head = Buffer.alloc(0);
      this.#tail = Buffer.alloc(0);
    }
  }
}
