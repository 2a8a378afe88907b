/**
 * The Streamable HTTP transport of one 2025-era session (one `Mcp-Session-Id`), written
 * straight onto node:http's request and response. The SDK's
 * `WebStandardStreamableHTTPServerTransport` turns every call into a WHATWG `Request`, a
 * `Response` and a `ReadableStream` and back: ≈ 0.5 ms of server CPU per `weft_run_get`,
 * a quarter of the call (bench/mcp-server). This one keeps the SDK's status codes and
 * JSON-RPC error bodies, but not its resumability (weft configures no event store).
 *
 * Where a POST's answers go: a lone request's answer leaves as one `application/json`
 * body, headers and body in a single write. The response turns into SSE when a message
 * about the request (progress, a log line, a server→client request) is sent before the
 * answer, when the answer is not ready within `streamAfterMs` (so a waiting client has
 * headers and keep-alives), or when the POST is a batch. Messages about no request go to
 * the session's GET stream, or nowhere when none is open.
 *
 * Off with the fast-path switch (legacy-session.ts then gives the SDK's transport).
 * Retired when the SDK's Streamable HTTP server transport runs on node:http without the
 * WHATWG round trip (a Node adapter writing to `ServerResponse`, as v1's
 * `StreamableHTTPServerTransport` did) at no more server CPU per call than this one.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  isInitializeRequest,
  isJsonContentType,
  parseJSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type RequestId,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import { headerValue, rpcError, sendJson } from './node-http-bridge.js';

/** The most messages one POST may carry (the SDK's bound). */
const MAX_BATCH_SIZE = 100;
/** An idle SSE stream gets a comment this often, so proxies and clients keep it open (the SDK's interval). */
const KEEP_ALIVE_MS = 15_000;
const KEEP_ALIVE_FRAME = ': keepalive\n\n';
const DEFAULT_STREAM_AFTER_MS = 1_000;
const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

export interface SessionTransportOptions {
  sessionIdGenerator: () => string;
  /** The session exists: later requests may name its id. */
  onsessioninitialized: (sessionId: string) => void;
  /** The client ended the session (DELETE). */
  onsessionclosed: (sessionId: string) => void;
  /** How long a lone request's answer may take and still leave as one JSON body. */
  streamAfterMs?: number;
}

/** A POST that carried requests: where their answers, and messages sent about them, go. */
interface Exchange {
  res: ServerResponse;
  /** Its requests still unanswered; the response ends when none is left. */
  unanswered: number;
  /** SSE headers are out, so everything from now on is an event. */
  streaming: boolean;
  /** Before streaming, the switch to SSE for a slow answer; while streaming, the keep-alive. */
  timer: NodeJS.Timeout | undefined;
}

interface Stream {
  res: ServerResponse;
  keepAlive: NodeJS.Timeout;
}

/** A request, as opposed to a notification or a response: parsed messages are strict, so the keys tell. */
function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message;
}

function isInitialize(message: JSONRPCMessage): boolean {
  return isRequest(message) && message.method === 'initialize' && isInitializeRequest(message);
}

function writeEvent(res: ServerResponse, message: JSONRPCMessage): void {
  if (!res.destroyed && !res.writableEnded) res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

function keepAlive(res: ServerResponse): NodeJS.Timeout {
  const timer = setInterval(() => res.destroyed || res.writableEnded || res.write(KEEP_ALIVE_FRAME), KEEP_ALIVE_MS).unref();
  res.once('close', () => clearInterval(timer));
  return timer;
}

export class SessionTransport implements Transport {
  sessionId: string | undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  private supportedVersions: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
  private started = false;
  private closed = false;
  /** Open POSTs by the ids of the requests they carry. */
  private readonly exchanges = new Map<RequestId, Exchange>();
  /** The GET stream, for messages about no request. */
  private standalone: Stream | undefined;
  private readonly streamAfterMs: number;

  constructor(private readonly options: SessionTransportOptions) {
    this.streamAfterMs = options.streamAfterMs ?? DEFAULT_STREAM_AFTER_MS;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('SessionTransport already started');
    this.started = true;
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.supportedVersions = versions;
  }

  /** Serves one HTTP request of the session. `parsedBody` is the body as JSON, `undefined` when it was empty or not JSON. */
  handleRequest(req: IncomingMessage, res: ServerResponse, parsedBody: unknown): void {
    if (this.closed) return sendJson(res, 404, rpcError(-32001, 'Session not found'));
    if (req.method === 'POST') return this.post(req, res, parsedBody);
    if (req.method === 'GET') return this.openStandaloneStream(req, res);
    if (req.method === 'DELETE') return this.terminate(req, res);
    this.refuse(res, 405, -32000, 'Method not allowed.', { allow: 'GET, POST, DELETE' });
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.closed) return;
    const answer = !('method' in message);
    const related = answer ? message.id : options?.relatedRequestId;
    if (related === undefined) {
      if (answer) throw new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request');
      if (this.standalone) writeEvent(this.standalone.res, message);
      return;
    }
    const exchange = this.exchanges.get(related);
    if (!exchange) throw new Error(`No connection established for request ID: ${String(related)}`);
    if (!answer) {
      this.stream(exchange);
      writeEvent(exchange.res, message);
      return;
    }
    this.exchanges.delete(related);
    exchange.unanswered -= 1;
    if (!exchange.streaming) return this.answerWithJson(exchange, message);
    writeEvent(exchange.res, message);
    if (exchange.unanswered === 0) {
      clearInterval(exchange.timer);
      exchange.res.end();
    }
  }

  /** Ends every open response (a stream not yet begun as an empty one, as the SDK does) and the session. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const open = new Set(this.exchanges.values());
    this.exchanges.clear();
    for (const exchange of open) {
      this.stream(exchange);
      clearInterval(exchange.timer);
      exchange.res.end();
    }
    if (this.standalone) {
      clearInterval(this.standalone.keepAlive);
      this.standalone.res.end();
      this.standalone = undefined;
    }
    this.onclose?.();
  }

  private post(req: IncomingMessage, res: ServerResponse, parsedBody: unknown): void {
    const accept = req.headers.accept;
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
      return this.refuse(res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    if (!isJsonContentType(req.headers['content-type']))
      return this.refuse(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    const messages = this.parseMessages(res, parsedBody);
    if (!messages) return;
    if (messages.some(isInitialize)) {
      if (this.sessionId !== undefined) return this.refuse(res, 400, -32600, 'Invalid Request: Server already initialized');
      if (messages.length > 1) return this.refuse(res, 400, -32600, 'Invalid Request: Only one initialization request is allowed');
      this.sessionId = this.options.sessionIdGenerator();
      this.options.onsessioninitialized(this.sessionId);
    } else if (!this.admits(req, res)) {
      return;
    }
    // Dispatched without `extra`: the SDK reads `extra.request` only to hand handlers
    // `ctx.http.req`, which weft's never read, and a `Request` per message is the very cost
    // this transport exists to avoid. The session id reaches them as `ctx.sessionId`.
    const requests = messages.filter(isRequest);
    if (requests.length === 0) {
      for (const message of messages) this.onmessage?.(message);
      res.writeHead(202).end();
      return;
    }
    const exchange: Exchange = { res, unanswered: requests.length, streaming: false, timer: undefined };
    // Registered before dispatch: the server may answer (an unknown method) while onmessage runs.
    for (const request of requests) this.exchanges.set(request.id, exchange);
    if (Array.isArray(parsedBody)) this.stream(exchange);
    else exchange.timer = setTimeout(() => this.streamNow(exchange), this.streamAfterMs).unref();
    for (const message of messages) this.onmessage?.(message);
  }

  private parseMessages(res: ServerResponse, body: unknown): JSONRPCMessage[] | undefined {
    if (body === undefined) return void this.refuse(res, 400, -32700, 'Parse error: Invalid JSON');
    if (Array.isArray(body) && body.length > MAX_BATCH_SIZE)
      return void this.refuse(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
    try {
      return Array.isArray(body) ? (body as unknown[]).map((message) => parseJSONRPCMessage(message)) : [parseJSONRPCMessage(body)];
    } catch {
      return void this.refuse(res, 400, -32700, 'Parse error: Invalid JSON-RPC message');
    }
  }

  /** Whether a request other than `initialize` may use the session: its id, and a protocol version the server speaks. */
  private admits(req: IncomingMessage, res: ServerResponse): boolean {
    const id = headerValue(req, 'mcp-session-id');
    const version = headerValue(req, 'mcp-protocol-version');
    if (this.sessionId === undefined) this.refuse(res, 400, -32000, 'Bad Request: Server not initialized');
    else if (!id) this.refuse(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    else if (id !== this.sessionId) this.refuse(res, 404, -32001, 'Session not found');
    else if (version !== undefined && !this.supportedVersions.includes(version)) {
      this.refuse(
        res,
        400,
        -32000,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${this.supportedVersions.join(', ')})`,
      );
    } else return true;
    return false;
  }

  private openStandaloneStream(req: IncomingMessage, res: ServerResponse): void {
    if (!req.headers.accept?.includes('text/event-stream'))
      return this.refuse(res, 406, -32000, 'Not Acceptable: Client must accept text/event-stream');
    if (!this.admits(req, res)) return;
    if (this.standalone) return this.refuse(res, 409, -32000, 'Conflict: Only one SSE stream is allowed per session');
    res.writeHead(200, this.sseHeaders());
    res.flushHeaders();
    const stream: Stream = { res, keepAlive: keepAlive(res) };
    this.standalone = stream;
    res.once('close', () => {
      if (this.standalone === stream) this.standalone = undefined;
    });
  }

  private terminate(req: IncomingMessage, res: ServerResponse): void {
    if (!this.admits(req, res) || this.sessionId === undefined) return;
    try {
      this.options.onsessionclosed(this.sessionId);
    } finally {
      void this.close();
    }
    res.writeHead(200).end();
  }

  /** Turns the exchange's response into SSE, if it is not already. */
  private stream(exchange: Exchange): void {
    if (exchange.streaming) return;
    exchange.streaming = true;
    clearTimeout(exchange.timer);
    exchange.timer = undefined;
    if (exchange.res.destroyed) return;
    exchange.res.writeHead(200, this.sseHeaders());
    exchange.timer = keepAlive(exchange.res);
  }

  /** The answer is slow: the client gets the stream's headers now rather than with the answer. */
  private streamNow(exchange: Exchange): void {
    this.stream(exchange);
    if (!exchange.res.destroyed) exchange.res.flushHeaders();
  }

  private answerWithJson(exchange: Exchange, message: JSONRPCMessage): void {
    clearTimeout(exchange.timer);
    const { res } = exchange;
    if (res.destroyed) return;
    const body = JSON.stringify(message);
    const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    res.writeHead(200, headers);
    res.end(body);
  }

  private sseHeaders(): Record<string, string> {
    return this.sessionId === undefined ? { ...SSE_HEADERS } : { ...SSE_HEADERS, 'mcp-session-id': this.sessionId };
  }

  /** A refusal: the JSON-RPC error body the SDK's transport answers with, reported to `onerror` as it does. */
  private refuse(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
    this.onerror?.(new Error(message));
    sendJson(res, status, rpcError(code, message), headers);
  }
}
