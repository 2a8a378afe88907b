// How answers leave over HTTP: a body complete at once goes in one piece with a content-length — a lone SSE answer to one
// request as application/json — while a body that stays open is streamed, its headers first.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sendWebResponse, type SendOptions } from './node-http-bridge.js';

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': 'session-1' };
const answer = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'line one\nline two' }] } };
const event = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** Serves one response built by `respond`, written by `sendWebResponse`; returns the URL. */
async function serve(respond: () => Response, options: SendOptions): Promise<string> {
  server = createServer((_req, res) => void sendWebResponse(res, respond(), options));
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
  it('sends a lone SSE answer to one request as application/json with a length, keeping the other headers', async () => {
    const url = await serve(() => new Response(complete(event(answer)), { headers: SSE_HEADERS }), { answerAsJson: true });
    const response = await fetch(url);
    expect({ type: response.headers.get('content-type'), length: response.headers.get('content-length'), session: response.headers.get('mcp-session-id'), cache: response.headers.get('cache-control') }).toEqual({
      type: 'application/json',
      length: String(JSON.stringify(answer).length),
      session: 'session-1',
      cache: null,
    });
    expect(await response.json()).toEqual(answer);
  });

  it('keeps SSE, in one piece, when the body holds more than one event or the request was not a lone request', async () => {
    const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } };
    const twoEvents = event(progress) + event(answer);
    const url = await serve(() => new Response(complete(event(progress), event(answer)), { headers: SSE_HEADERS }), { answerAsJson: true });
    const response = await fetch(url);
    expect([response.headers.get('content-type'), response.headers.get('content-length'), await response.text()]).toEqual(['text/event-stream', String(twoEvents.length), twoEvents]);
    await new Promise((resolve) => server?.close(resolve));

    const notLone = await serve(() => new Response(complete(event(answer)), { headers: SSE_HEADERS }), {});
    const sse = await fetch(notLone);
    expect([sse.headers.get('content-type'), await sse.text()]).toEqual(['text/event-stream', event(answer)]);
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
      { answerAsJson: true },
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
    const url = await serve(() => new Response(null, { status: 202 }), { answerAsJson: true });
    const response = await fetch(url);
    expect([response.status, await response.text()]).toEqual([202, '']);
  });
});
