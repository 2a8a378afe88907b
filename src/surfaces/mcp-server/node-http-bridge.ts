/**
 * Between `node:http` and the web-standard `Request`/`Response` the MCP SDK's HTTP
 * transports speak: builds a `Request` from an incoming message and writes a `Response`
 * back. What the response body holds at once leaves in one write with the headers — a
 * lone JSON-RPC answer as `application/json` — and only a body that stays open (SSE:
 * progress, the standalone GET stream) is streamed until the client goes away.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Largest request body read (the SDK's own default bound). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The whole body, or `undefined` when it is larger than `MAX_BODY_BYTES`. */
export async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * A `Request` for `req`, with `signal` when given. Leave `body` out when the SDK gets the
 * parsed body instead: nobody reads it then, and a body costs undici a stream per request.
 */
export function toWebRequest(req: IncomingMessage, origin: string, body: Buffer | undefined, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const method = req.method ?? 'GET';
  return new Request(new URL(req.url ?? '/', origin), { method, headers, ...(signal ? { signal } : {}), ...(body && body.length > 0 && method !== 'GET' && method !== 'HEAD' ? { body } : {}) });
}

export interface SendOptions {
  /**
   * The request was one JSON-RPC request: a stream that ends at once holding nothing but
   * its answer goes out as `application/json`, which the client must accept as well as SSE
   * (Streamable HTTP, "Sending messages to the server") and reads with far less work.
   */
  answerAsJson?: boolean;
}

/**
 * Writes `response` to `res`; resolves when it is fully sent or the client left.
 *
 * @example await sendWebResponse(res, await transport.handleRequest(request), { answerAsJson: true });
 */
export async function sendWebResponse(res: ServerResponse, response: Response, options: SendOptions = {}): Promise<void> {
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
  // Whatever the body holds before the event loop turns: a tool call answered from the
  // store is complete by then, and leaves in one write instead of headers, chunk and end.
  const ready: Uint8Array[] = [];
  let next = reader.read();
  for (let chunk = await settledNow(next); chunk !== undefined; chunk = await settledNow(next)) {
    if (chunk.done) return sendWhole(res, response.status, headers, ready, options);
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

/** A small JSON answer for requests refused before they reach MCP (auth, routing). */
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

function sendWhole(res: ServerResponse, status: number, headers: Record<string, string>, chunks: readonly Uint8Array[], options: SendOptions): void {
  const json = options.answerAsJson === true && headers['content-type'] === 'text/event-stream' ? loneEventData(chunks) : undefined;
  const body = json ?? (chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks));
  if (json) {
    headers['content-type'] = 'application/json';
    delete headers['cache-control'];
    delete headers['x-accel-buffering'];
  }
  headers['content-length'] = String(body.length);
  res.writeHead(status, headers);
  res.end(body);
}

const SSE_EVENT_HEAD = Buffer.from('event: message\ndata: ');
const SSE_EVENT_TAIL = Buffer.from('\n\n');
const NEWLINE = 0x0a;

/**
 * The data of a body that is exactly one SSE `message` event — how the SDK frames a lone
 * answer: `event: message\ndata: <one line of JSON>\n\n` — or `undefined` for anything
 * else (several events, an event id, a comment), which then stays SSE.
 */
function loneEventData(chunks: readonly Uint8Array[]): Uint8Array | undefined {
  const body = chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
  const end = body.length - SSE_EVENT_TAIL.length;
  if (end <= SSE_EVENT_HEAD.length) return undefined;
  if (!SSE_EVENT_HEAD.equals(body.subarray(0, SSE_EVENT_HEAD.length)) || !SSE_EVENT_TAIL.equals(body.subarray(end))) return undefined;
  const data = body.subarray(SSE_EVENT_HEAD.length, end);
  return data.includes(NEWLINE) ? undefined : data;
}
