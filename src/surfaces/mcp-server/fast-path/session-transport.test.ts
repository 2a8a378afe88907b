// The 2025-era session transport on node:http, over real HTTP: a lone answer as one JSON body, SSE when progress
// comes first, when the answer is slow or for a batch; the SDK transport's refusals; the GET stream, DELETE and close();
// a client that leaves mid-stream; and the official SDK client end to end.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readBody } from './node-http-bridge.js';
import { SessionTransport } from './session-transport.js';

const PROTOCOL = '2025-11-25';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const ACCEPT_BOTH = 'application/json, text/event-stream';

interface Session {
  transport: SessionTransport;
  mcp: McpServer;
}

interface Harness {
  url: string;
  sessions: Map<string, Session>;
  /** Ids of sessions whose DELETE reached `onsessionclosed`. */
  ended: string[];
  /** Resolves, once the `hold` tool runs, with what lets it answer. */
  nextHold(): Promise<() => void>;
  /** Resolves when the server sees a response closed before it was finished: its client left. */
  nextLeaving(): Promise<void>;
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

function newMcpServer(holds: ((release: () => void) => void)[]): McpServer {
  const mcp = new McpServer({ name: 'test', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  mcp.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  mcp.registerTool('steps', { inputSchema: z.object({ count: z.number() }) }, async ({ count }, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken ?? 'none';
    for (let step = 1; step <= count; step += 1)
      await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: step, total: count } });
    return { content: [{ type: 'text', text: `${count} steps` }] };
  });
  // Answers when the test says so; with `progress`, reports once before waiting and once after.
  mcp.registerTool('hold', { inputSchema: z.object({ progress: z.boolean() }) }, async ({ progress }, ctx) => {
    const report = (step: number) =>
      progress ? ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: 'held', progress: step } }) : undefined;
    await report(1);
    await new Promise<void>((release) => holds.shift()?.(release));
    await report(2);
    return { content: [{ type: 'text', text: 'released' }] };
  });
  return mcp;
}

/** A node:http server handing /mcp to one SessionTransport per session, the way http-transport.ts does. */
async function serve(streamAfterMs?: number): Promise<Harness> {
  const sessions = new Map<string, Session>();
  const ended: string[] = [];
  const holds: ((release: () => void) => void)[] = [];
  const leavings: (() => void)[] = [];
  let next = 0;
  server = createServer(async (req, res) => {
    res.once('close', () => res.writableFinished || leavings.shift()?.());
    const body = (await readBody(req)) ?? Buffer.alloc(0);
    let parsed: unknown;
    try {
      parsed = body.length === 0 ? undefined : (JSON.parse(body.toString('utf8')) as unknown);
    } catch {
      parsed = undefined;
    }
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (known) return known.transport.handleRequest(req, res, parsed);
    if (typeof id === 'string') return void res.writeHead(404).end();
    const mcp = newMcpServer(holds);
    const transport: SessionTransport = new SessionTransport({
      sessionIdGenerator: () => `session-${(next += 1)}`,
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, { transport, mcp }),
      // Kept in the map, so later requests reach the closed transport itself.
      onsessionclosed: (sessionId) => void ended.push(sessionId),
      ...(streamAfterMs === undefined ? {} : { streamAfterMs }),
    });
    await mcp.connect(transport);
    transport.handleRequest(req, res, parsed);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    sessions,
    ended,
    nextHold: () => new Promise((resolve) => holds.push(resolve)),
    nextLeaving: () => new Promise((resolve) => leavings.push(resolve)),
  };
}

function post(url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** Initializes a session; returns the headers later requests send. */
async function initialize(url: string): Promise<Record<string, string>> {
  const response = await post(url, INITIALIZE);
  await response.text();
  const headers = { 'mcp-session-id': response.headers.get('mcp-session-id') ?? '', 'mcp-protocol-version': PROTOCOL };
  expect((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);
  return headers;
}

const callTool = (id: number, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

/** The `data` of each SSE `message` event in `text`. */
function events(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('event: message\n'))
    .map((block) => JSON.parse(block.slice(block.indexOf('data: ') + 6)) as unknown);
}

/** Reads SSE events off an open stream, one at a time. */
function eventReader(response: Response): () => Promise<unknown> {
  const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  return async () => {
    for (;;) {
      const end = buffered.indexOf('\n\n');
      if (end >= 0) {
        const block = buffered.slice(0, end + 2);
        buffered = buffered.slice(end + 2);
        const [event] = events(block);
        if (event !== undefined) return event;
        continue;
      }
      const chunk = await reader.read();
      if (chunk.done) return undefined;
      buffered += chunk.value;
    }
  };
}

const refusal = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

describe('SessionTransport', () => {
  it('creates the session on initialize and answers a lone request as one JSON body with its length', async () => {
    const { url } = await serve();
    const init = await post(url, INITIALIZE);
    const initText = await init.text();
    expect([init.status, init.headers.get('content-type'), init.headers.get('content-length'), init.headers.get('mcp-session-id')]).toEqual(
      [200, 'application/json', String(Buffer.byteLength(initText)), 'session-1'],
    );
    expect(JSON.parse(initText)).toMatchObject({ id: 0, result: { protocolVersion: PROTOCOL, serverInfo: { name: 'test' } } });
    const headers = await initialize(url);

    const echoed = await post(url, callTool(1, 'echo', { text: 'hi' }), headers);
    const text = await echoed.text();
    expect([echoed.headers.get('content-type'), echoed.headers.get('content-length'), echoed.headers.get('mcp-session-id')]).toEqual([
      'application/json',
      String(Buffer.byteLength(text)),
      headers['mcp-session-id'],
    ]);
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }] } });
    // Answered while the request is still being dispatched: the exchange exists before the server sees the request.
    expect(await (await post(url, { jsonrpc: '2.0', id: 2, method: 'no/such/method' }, headers)).json()).toMatchObject({
      id: 2,
      error: { code: -32601 },
    });
    expect(await (await post(url, INITIALIZE, headers)).json()).toEqual(refusal(-32600, 'Invalid Request: Server already initialized'));
  });

  it('refuses what the SDK transport refuses, with its status codes and bodies', async () => {
    const { url } = await serve();
    const headers = await initialize(url);
    const refused = async (response: Promise<Response>) => {
      const answer = await response;
      return [answer.status, await answer.json()];
    };
    expect(await refused(post(url, callTool(1, 'echo', { text: 'x' }), { ...headers, accept: 'application/json' }))).toEqual([
      406,
      refusal(-32000, 'Not Acceptable: Client must accept both application/json and text/event-stream'),
    ]);
    expect(await refused(post(url, callTool(1, 'echo', { text: 'x' }), { ...headers, 'content-type': 'text/plain' }))).toEqual([
      415,
      refusal(-32000, 'Unsupported Media Type: Content-Type must be application/json'),
    ]);
    expect(await refused(post(url, '{"jsonrpc":', headers))).toEqual([400, refusal(-32700, 'Parse error: Invalid JSON')]);
    expect(await refused(post(url, { hello: 'world' }, headers))).toEqual([400, refusal(-32700, 'Parse error: Invalid JSON-RPC message')]);
    const batch = Array.from({ length: 101 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'ping' }));
    expect(await refused(post(url, batch, headers))).toEqual([400, refusal(-32600, 'Invalid Request: Batch must not exceed 100 messages')]);
    const [status, body] = await refused(
      post(url, callTool(1, 'echo', { text: 'x' }), { ...headers, 'mcp-protocol-version': '1999-01-01' }),
    );
    expect([status, body]).toMatchObject([
      400,
      {
        error: {
          code: -32000,
          message: expect.stringMatching(/^Bad Request: Unsupported protocol version: 1999-01-01 \(supported versions: .*2025-11-25/),
        },
      },
    ]);
    const put = await fetch(url, { method: 'PUT', headers });
    expect([put.status, put.headers.get('allow'), await put.json()]).toEqual([
      405,
      'GET, POST, DELETE',
      refusal(-32000, 'Method not allowed.'),
    ]);
    expect(await refused(fetch(url, { headers: { ...headers, accept: 'application/json' } }))).toEqual([
      406,
      refusal(-32000, 'Not Acceptable: Client must accept text/event-stream'),
    ]);
    // No session header: a fresh transport, which serves nothing before initialize.
    expect(await refused(post(url, callTool(1, 'echo', { text: 'x' })))).toEqual([
      400,
      refusal(-32000, 'Bad Request: Server not initialized'),
    ]);
    expect(await refused(post(url, [INITIALIZE, { jsonrpc: '2.0', id: 9, method: 'ping' }]))).toEqual([
      400,
      refusal(-32600, 'Invalid Request: Only one initialization request is allowed'),
    ]);
  });

  it('turns the answer into SSE when progress comes first, and ends the stream with the answer', async () => {
    const { url } = await serve();
    const headers = await initialize(url);
    const response = await post(url, callTool(3, 'steps', { count: 2 }, { progressToken: 'p' }), headers);
    expect([response.headers.get('content-type'), response.headers.get('mcp-session-id'), response.headers.get('content-length')]).toEqual([
      'text/event-stream',
      headers['mcp-session-id'],
      null,
    ]);
    expect(events(await response.text())).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, total: 2 } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 2, total: 2 } },
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: '2 steps' }] } },
    ]);
  });

  it('streams an answer that is not ready within streamAfterMs: the headers come before it', async () => {
    const harness = await serve(20);
    const headers = await initialize(harness.url);
    const held = harness.nextHold();
    const response = await post(harness.url, callTool(4, 'hold', { progress: false }), headers);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    (await held)();
    expect(events(await response.text())).toEqual([{ jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'released' }] } }]);
  });

  it('answers a batch over SSE and ends when every request in it is answered; notifications alone get 202', async () => {
    const { url } = await serve();
    const headers = await initialize(url);
    const response = await post(
      url,
      [
        callTool(5, 'echo', { text: 'a' }),
        { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
        callTool(6, 'echo', { text: 'b' }),
      ],
      headers,
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const answers = events(await response.text()) as { id: number }[];
    expect(answers.map((answer) => answer.id).sort()).toEqual([5, 6]);
    const notified = await post(url, [{ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }], headers);
    expect([notified.status, await notified.text()]).toEqual([202, '']);
  });

  it('keeps one GET stream per session for messages about no request; DELETE ends the session', async () => {
    const harness = await serve();
    const headers = await initialize(harness.url);
    const session = harness.sessions.get(headers['mcp-session-id'] ?? '') as Session;
    // No stream open: dropped, not an error.
    session.mcp.sendToolListChanged();

    const listening = new AbortController();
    const stream = await fetch(harness.url, { headers: { ...headers, accept: 'text/event-stream' }, signal: listening.signal });
    expect([stream.status, stream.headers.get('content-type'), stream.headers.get('mcp-session-id')]).toEqual([
      200,
      'text/event-stream',
      headers['mcp-session-id'],
    ]);
    const second = await fetch(harness.url, { headers: { ...headers, accept: 'text/event-stream' } });
    expect([second.status, await second.json()]).toEqual([409, refusal(-32000, 'Conflict: Only one SSE stream is allowed per session')]);
    const next = eventReader(stream);
    session.mcp.sendToolListChanged();
    expect(await next()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });

    // The client leaves; once the server has noticed, a new stream may open.
    const gone = harness.nextLeaving();
    listening.abort();
    await gone;
    const reopened = await fetch(harness.url, { headers: { ...headers, accept: 'text/event-stream' } });
    expect(reopened.status).toBe(200);

    const closed = new Promise<void>((resolve) => (session.mcp.server.onclose = resolve));
    const deleted = await fetch(harness.url, { method: 'DELETE', headers });
    expect(deleted.status).toBe(200);
    await closed;
    expect(harness.ended).toEqual([headers['mcp-session-id']]);
    expect(await reopened.text()).toBe('');
    const afterEnd = await post(harness.url, callTool(7, 'echo', { text: 'x' }), headers);
    expect([afterEnd.status, await afterEnd.json()]).toEqual([404, refusal(-32001, 'Session not found')]);
  });

  it('close() ends every open response — one not yet begun as an empty stream — and fires onclose', async () => {
    const harness = await serve();
    const headers = await initialize(harness.url);
    const session = harness.sessions.get(headers['mcp-session-id'] ?? '') as Session;
    const held = harness.nextHold();
    const waiting = post(harness.url, callTool(8, 'hold', { progress: false }), headers);
    await held;
    const closed = new Promise<void>((resolve) => (session.mcp.server.onclose = resolve));
    await session.transport.close();
    await closed;
    const response = await waiting;
    expect([response.status, response.headers.get('content-type'), await response.text()]).toEqual([200, 'text/event-stream', '']);
  });

  it('stops writing to a client that left mid-stream, without an error, and keeps serving the session', async () => {
    const harness = await serve();
    const headers = await initialize(harness.url);
    const session = harness.sessions.get(headers['mcp-session-id'] ?? '') as Session;
    const errors: Error[] = [];
    session.mcp.server.onerror = (error) => void errors.push(error);
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => void rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const held = harness.nextHold();
      const leaving = new AbortController();
      const response = await post(harness.url, callTool(9, 'hold', { progress: true }), headers, leaving.signal);
      expect(await eventReader(response)()).toMatchObject({ method: 'notifications/progress', params: { progress: 1 } });
      const release = await held;
      const gone = harness.nextLeaving();
      leaving.abort();
      await gone;
      release();
      expect(await (await post(harness.url, callTool(10, 'echo', { text: 'still here' }), headers)).json()).toMatchObject({
        id: 10,
        result: { content: [{ text: 'still here' }] },
      });
      // A rejection nobody handled is reported once the event loop turns.
      await new Promise((resolve) => setImmediate(resolve));
      expect({ errors, rejections }).toEqual({ errors: [], rejections: [] });
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('serves the official SDK client, progress included', async () => {
    const { url } = await serve();
    const client = new Client({ name: 'sdk', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['echo', 'hold', 'steps']);
      expect((await client.callTool({ name: 'echo', arguments: { text: 'sdk' } })).content).toEqual([{ type: 'text', text: 'sdk' }]);
      const progress: number[] = [];
      const stepped = await client.callTool(
        { name: 'steps', arguments: { count: 3 } },
        { onprogress: (update) => void progress.push(update.progress) },
      );
      expect([stepped.content, progress]).toEqual([[{ type: 'text', text: '3 steps' }], [1, 2, 3]]);
    } finally {
      await client.close();
    }
  });
});
