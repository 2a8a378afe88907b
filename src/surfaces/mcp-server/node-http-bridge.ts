/**
 * Between `node:http` and the web-standard `Request`/`Response` the MCP SDK's HTTP
 * transports speak: builds a streaming `Request` from an incoming message and writes a
 * `Response` back, streaming its body (SSE included) until the client goes away.
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

/** A `Request` for `req` with its body already read; its signal aborts when the client disconnects. */
export function toWebRequest(req: IncomingMessage, origin: string, body: Buffer | undefined, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const method = req.method ?? 'GET';
  return new Request(new URL(req.url ?? '/', origin), { method, headers, signal, ...(body && body.length > 0 && method !== 'GET' && method !== 'HEAD' ? { body } : {}) });
}

/** Writes `response` to `res`, streaming the body; resolves when it is fully sent or the client left. */
export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const closed = new Promise<void>((resolve) => res.once('close', resolve));
  void closed.then(() => reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done || res.destroyed) break;
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
