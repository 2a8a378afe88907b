/**
 * The loop of the API's Server-Sent Events streams: wait for what a follower has next,
 * send it all in one write, a comment line when it is quiet, and let the follower go when
 * the client leaves.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { HttpFailure } from '../error-response.js';

/** A comment line now and then keeps proxies and idle timeouts from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;

export interface StreamFollower<T> {
  next(ms: number, signal: AbortSignal): Promise<T[]>;
  close(): void;
}

export function wantsEventStream(context: Context): boolean {
  return context.req.header('accept')?.includes('text/event-stream') === true;
}

/** The `Last-Event-ID` header as a non-negative integer (`what` says what it must be, for the error). */
export function lastEventId(context: Context, what: string): number | undefined {
  const header = context.req.header('last-event-id');
  if (header === undefined || header.trim() === '') return undefined;
  const value = Number(header);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new HttpFailure('INVALID_ARGUMENTS', `Invalid Last-Event-ID '${header.slice(0, 40)}': it must be ${what}.`);
  return value;
}

/** Streams what `follow()` hands out, each item as `frame(item)` (a whole SSE message). */
export function followerStream<T>(context: Context, follow: () => StreamFollower<T>, frame: (item: T) => string): Response {
  return streamSSE(context, async (sse) => {
    const follower = follow();
    const stopped = new AbortController();
    sse.onAbort(() => stopped.abort());
    try {
      while (!stopped.signal.aborted) {
        const items = await follower.next(KEEP_ALIVE_MS, stopped.signal);
        // Everything that arrived since the last write goes out in one write.
        if (items.length > 0) await sse.write(items.map(frame).join(''));
        else if (!stopped.signal.aborted) await sse.write(': keep-alive\n\n');
      }
    } finally {
      follower.close();
    }
  });
}
