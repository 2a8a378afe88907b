/**
 * Between `node:http` and what sits on it: the request body, small JSON refusals, and for
 * the 2026-era path (the SDK's `createMcpHandler`, web-standard only) a `Request` built
 * from an incoming message and its `Response` written back. What that response body holds
 * at once leaves in one write with the headers; only a body that stays open (SSE) is
 * streamed until the client goes away.
 *
 * The one fast-path file both paths use: SDK 2.4 serves web-standard `Request`s only, so
 * the plain path (the 2026 era, and the 2025 era with the switch off) needs this bridge.
 * Retired by an SDK Node adapter for its handlers and transports (`node:http` in, out).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Largest request body read (the SDK's own default bound). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The whole body, or `undefined` when it is larger than `MAX_BODY_BYTES`: the rest of it is
 * then drained and dropped, not held. Neither destroying the request nor closing the
 * connection after the 413 would do: either resets the connection while the client is still
 * sending, and the client sees a reset instead of its answer. A body that never ends is cut
 * by the server's `requestTimeout`. Read with listeners: a stream's async iterator costs
 * tens of µs per request, a noticeable share of a tool call answered from the store.
 */
export function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      req.off('data', onData).off('end', onEnd).resume();
      resolve(undefined);
    };
    const onEnd = () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    req.on('data', onData).once('end', onEnd).once('error', reject);
  });
}

/**
 * A `Request` for `req`, without a body: the SDK gets the body already parsed, nobody
 * reads it again, and a body costs undici a stream per request.
 */
export function toWebRequest(req: IncomingMessage, origin: string, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return new Request(new URL(req.url ?? '/', origin), { method: req.method ?? 'GET', headers, ...(signal ? { signal } : {}) });
}

/** A header as one string, repeats joined the way `Headers.get` joins them. */
export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Writes `response` to `res`; resolves when it is fully sent or the client left.
 *
 * @example await sendWebResponse(res, await modern.fetch(request));
 */
export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (!response.body) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  const reader = response.body.getReader();
  // Whatever the body holds before the event loop turns — a JSON answer is complete by
  // then — leaves in one write instead of headers, chunk and end.
  const ready: Uint8Array[] = [];
  let next = reader.read();
  for (let chunk = await settledNow(next); chunk !== undefined; chunk = await settledNow(next)) {
    if (chunk.done) return sendWhole(res, response.status, headers, ready);
    ready.push(chunk.value);
    next = reader.read();
  }
  // Still open: a stream. Its headers go now, so the client sees it start.
  res.writeHead(response.status, headers);
  res.flushHeaders();
  const closed = new Promise<void>((resolve) => res.once('close', resolve));
  void closed.then(() => reader.cancel().catch(() => undefined));
  try {
    for (const chunk of ready) res.write(chunk);
    for (let chunk = await next; !chunk.done && !res.destroyed; chunk = await reader.read()) {
      if (!res.write(chunk.value)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
    }
  } catch {
    // The stream was cancelled because the client went away; nothing left to send.
  } finally {
    res.end();
  }
}

/** A small JSON answer in one write: refusals (auth, routing, a session's) and the like. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** `pending`'s result if it settles before the event loop's next check phase, else `undefined`. */
async function settledNow<T>(pending: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Immediate | undefined;
  try {
    return await Promise.race([pending, new Promise<undefined>((resolve) => (timer = setImmediate(resolve, undefined)))]);
  } finally {
    clearImmediate(timer);
  }
}

function sendWhole(res: ServerResponse, status: number, headers: Record<string, string>, chunks: readonly Uint8Array[]): void {
  const body = chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
  headers['content-length'] = String(body.length);
  res.writeHead(status, headers);
  res.end(body);
}

/** A JSON-RPC error body for a refused HTTP request: no request id is known then. */
export function rpcError(code: number, message: string, data?: Record<string, unknown>): unknown {
  return { jsonrpc: '2.0', id: null, error: { code, message, ...(data ? { data } : {}) } };
}
