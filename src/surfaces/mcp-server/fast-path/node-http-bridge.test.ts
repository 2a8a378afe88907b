// How the 2026-era path's web-standard answers leave over HTTP: a body complete at once goes in one piece with a
// content-length, while a body that stays open is streamed, its headers first. And request bodies: read whole, or
// refused past the limit whether the length is declared or not.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES, readBody, sendWebResponse } from './node-http-bridge.js';

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': 'session-1' };
const answer = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'line one\nline two' }] } };
const event = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** Serves one response built by `respond`, written by `sendWebResponse`; returns the URL. */
async function serve(respond: () => Response): Promise<string> {
  server = createServer((_req, res) => void sendWebResponse(res, respond()));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** A body that already holds `chunks` and ends. */
function complete(...chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
}

describe('sendWebResponse', () => {
  it('sends a body that is complete at once in one piece, with a length and the other headers kept', async () => {
    const url = await serve(() => Response.json(answer, { headers: { 'mcp-session-id': 'session-1' } }));
    const response = await fetch(url);
    expect({
      type: response.headers.get('content-type'),
      length: response.headers.get('content-length'),
      session: response.headers.get('mcp-session-id'),
    }).toEqual({
      type: 'application/json',
      length: String(JSON.stringify(answer).length),
      session: 'session-1',
    });
    expect(await response.json()).toEqual(answer);
  });

  it('keeps an SSE body complete at once as it is, in one piece', async () => {
    const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } };
    const twoEvents = event(progress) + event(answer);
    const url = await serve(() => new Response(complete(event(progress), event(answer)), { headers: SSE_HEADERS }));
    const response = await fetch(url);
    expect([response.headers.get('content-type'), response.headers.get('content-length'), await response.text()]).toEqual([
      'text/event-stream',
      String(twoEvents.length),
      twoEvents,
    ]);
  });

  it('streams a body that stays open: the headers arrive before the answer exists', async () => {
    let push: (text: string) => void = () => {};
    let end: () => void = () => {};
    const url = await serve(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              push = (text) => controller.enqueue(new TextEncoder().encode(text));
              end = () => controller.close();
            },
          }),
          { headers: SSE_HEADERS },
        ),
    );
    const response = await fetch(url);
    expect([response.headers.get('content-type'), response.headers.get('content-length')]).toEqual(['text/event-stream', null]);
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    push(event(answer));
    expect((await reader?.read())?.value).toBe(event(answer));
    end();
    expect((await reader?.read())?.done).toBe(true);
  });

  it('sends a body-less response as it is', async () => {
    const url = await serve(() => new Response(null, { status: 202 }));
    const response = await fetch(url);
    expect([response.status, await response.text()]).toEqual([202, '']);
  });
});

describe('readBody', () => {
  /** Sends `chunks` (chunked, no declared length, unless `length` is given); resolves with what readBody made of them. */
  async function bodyOf(chunks: Buffer[], length?: number): Promise<number | undefined> {
    let read: (size: number | undefined) => void = () => {};
    const result = new Promise<number | undefined>((resolve) => (read = resolve));
    server = createServer(async (req, res) => {
      const body = await readBody(req);
      read(body?.length);
      res.end();
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const sent = request({
      port: (server.address() as AddressInfo).port,
      host: '127.0.0.1',
      method: 'POST',
      headers: length === undefined ? {} : { 'content-length': String(length) },
    });
    sent.on('error', () => undefined).on('response', (res) => res.resume());
    for (const chunk of chunks) sent.write(chunk);
    sent.end();
    return result;
  }

  it('reads a body sent in pieces whole', async () => {
    expect(await bodyOf([Buffer.from('{"a":'), Buffer.from('1}')])).toBe(7);
  });

  it('refuses a body past the limit, declared or found out while reading', async () => {
    expect(await bodyOf([Buffer.from('x')], MAX_BODY_BYTES + 1)).toBeUndefined();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    const half = Buffer.alloc(MAX_BODY_BYTES / 2 + 1);
    expect(await bodyOf([half, half])).toBeUndefined();
  });
});
