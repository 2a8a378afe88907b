/**
 * `weft mcp start --http`: Streamable HTTP on `/mcp`. Every request passes, in order,
 * Host and Origin validation (DNS-rebinding protection, 403), then the bearer token
 * (401), then goes to its protocol era: 2025-era clients get a session (one server
 * instance each, so subscriptions and progress work) served by `SessionTransport` on
 * node:http directly — the path nearly every client takes today; 2026-era requests are
 * served statelessly by the SDK's `createMcpHandler`, through a web-standard `Request` and
 * `Response` (node-http-bridge.ts), their `subscriptions/listen` streams fed by weft's
 * store watches (listen-watches.ts).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname as machineName } from 'node:os';
import {
  classifyInboundRequest,
  createMcpHandler,
  localhostAllowedHostnames,
  validateHostHeader,
  validateOriginHeader,
} from '@modelcontextprotocol/server';
import { errorMessage } from '../../core/errors.js';
import { listenRefusal, listenRequest, ListenWatches } from './listen-watches.js';
import { isLoopbackHost } from '../shared/loopback.js';
import { requestOrigin } from '../shared/request-origin.js';
import { headerValue, MAX_BODY_BYTES, readBody, rpcError, sendJson, sendWebResponse, toWebRequest } from './fast-path/node-http-bridge.js';
import type { McpEra, WeftMcpServer } from './server.js';
import { openLegacySession, type LegacySession } from './fast-path/legacy-session.js';
import { mcpFastPath } from '../../mcp/fast-path/fast-path-switch.js';
import type { McpServerDeps } from './tool-kit.js';
import { bearerCheck } from '../shared/bearer-check.js';

export const MCP_PATH = '/mcp';
/** Sessions unused for this long are closed (clients re-initialize on 404). */
const SESSION_IDLE_MS = 60 * 60 * 1000;
const MAX_SESSIONS = 1000;

export interface HttpServeOptions {
  host: string;
  port: number;
  /** `undefined` serves without authentication (loopback only; the CLI enforces it). */
  token: string | undefined;
  /** Extra hostnames clients may use in Host/Origin (for a non-loopback bind). */
  allowedHosts: readonly string[];
  factory: (era: McpEra) => WeftMcpServer;
  /** What 2026-era `subscriptions/listen` streams watch the store with. */
  deps: McpServerDeps;
  onError: (error: Error) => void;
  /** `[mcp] fast_path`: weft's own session transport or, false, the SDK's; `WEFT_MCP_FAST_PATH` wins over it. */
  fastPath?: boolean;
}

export interface HttpServerHandle {
  url: string;
  close(): Promise<void>;
}

/** The MCP endpoint on its own, for a server that serves more than `/mcp` (`weft serve`). */
export interface McpEndpoint {
  /** Serves one request to `/mcp`; `origin` is `http://<Host header>`. */
  handle(req: IncomingMessage, res: ServerResponse, origin: string): Promise<void>;
  close(): Promise<void>;
}

interface Session {
  transport: LegacySession;
  instance: WeftMcpServer;
  lastUsed: number;
}

function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** Hostnames accepted in Host and Origin headers. */
export function allowedHostnames(host: string, extra: readonly string[]): string[] {
  const names = new Set([...localhostAllowedHostnames(), ...extra.map(bracketed)]);
  if (!isLoopbackHost(host)) {
    if (host === '0.0.0.0' || host === '::') names.add(machineName());
    else names.add(bracketed(host));
  }
  return [...names];
}

/** The body as JSON when it is JSON; `undefined` leaves the parse error to the session transport. */
function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Whether the request is 2025-era (session) traffic: the SDK's own routing rule, as its
 * `isLegacyRequest` applies it, read from node's headers so the session path builds no
 * `Request`. A POST without a JSON body counts as 2025-era, whose transport answers it
 * with the parse error.
 */
function isSessionRequest(req: IncomingMessage, parsedBody: unknown): boolean {
  if (req.method === 'POST' && parsedBody === undefined) return true;
  const route = classifyInboundRequest({
    httpMethod: req.method ?? 'GET',
    protocolVersionHeader: headerValue(req, 'mcp-protocol-version'),
    mcpMethodHeader: headerValue(req, 'mcp-method'),
    mcpNameHeader: headerValue(req, 'mcp-name'),
    body: parsedBody,
  });
  return route.kind === 'legacy';
}

/** Host/Origin checks, the bearer token and MCP sessions for requests to `/mcp`. */
export function createMcpEndpoint(options: Omit<HttpServeOptions, 'port'>): McpEndpoint {
  const hosts = allowedHostnames(options.host, options.allowedHosts);
  const authorized = options.token === undefined ? () => true : bearerCheck(options.token);
  const sessions = new Map<string, Session>();
  const fastPath = mcpFastPath(process.env, options.fastPath);
  const modern = createMcpHandler(() => options.factory('modern').server, { legacy: 'reject', onerror: options.onError });
  const listens = new ListenWatches(options.deps, (uri) => modern.notify.resourceUpdated(uri));

  const closeSession = (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    session.instance.dispose();
    void session.instance.server.close().catch(() => undefined);
  };

  const serveLegacy = async (req: IncomingMessage, res: ServerResponse, origin: string, parsedBody: unknown): Promise<void> => {
    const id = headerValue(req, 'mcp-session-id');
    if (id) {
      const session = sessions.get(id);
      if (!session)
        return sendJson(
          res,
          404,
          rpcError(-32001, 'Session not found: it ended or the server restarted. Initialize a new session.', { code: 'SESSION_NOT_FOUND' }),
        );
      session.lastUsed = Date.now();
      return session.transport.serve(req, res, parsedBody, origin);
    }
    if (req.method !== 'POST')
      return sendJson(
        res,
        400,
        rpcError(-32000, 'Missing mcp-session-id header: initialize a session with a POST first.', { code: 'SESSION_REQUIRED' }),
      );
    if (sessions.size >= MAX_SESSIONS) {
      const oldest = [...sessions].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
      if (oldest) closeSession(oldest[0]);
    }
    const instance = options.factory('legacy');
    const transport: LegacySession = openLegacySession(fastPath, {
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, { transport, instance, lastUsed: Date.now() }),
      onsessionclosed: (sessionId) => closeSession(sessionId),
    });
    await instance.server.connect(transport.transport);
    await transport.serve(req, res, parsedBody, origin);
    if (transport.sessionId() === undefined) {
      instance.dispose();
      void instance.server.close().catch(() => undefined);
    }
  };

  /** A 2026-era request: stateless, through the SDK's web-standard handler. */
  const serveModern = async (req: IncomingMessage, res: ServerResponse, origin: string, parsedBody: unknown): Promise<void> => {
    // Its streams (subscriptions) end when the client leaves before its answer is complete.
    const aborted = new AbortController();
    let ended = false;
    res.once('close', () => {
      ended = true;
      if (!res.writableFinished) aborted.abort();
    });
    const listen = listenRequest(parsedBody);
    if (listen) {
      // Checked and watched before the SDK acknowledges the filter; watched until the stream ends.
      let release: () => void;
      try {
        release = await listens.open(listen.uris);
      } catch (error) {
        return sendJson(res, 200, listenRefusal(listen.id, error));
      }
      if (ended) release();
      else res.once('close', release);
    }
    await sendWebResponse(res, await modern.fetch(toWebRequest(req, origin, aborted.signal), { parsedBody }));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, origin: string): Promise<void> => {
    // Host, Origin and token are checked on the headers alone, before any body is read.
    const checked = validateHostHeader(req.headers.host, hosts);
    const refused = checked.ok ? validateOriginHeader(req.headers.origin, hosts) : checked;
    if (!refused.ok) return sendJson(res, 403, rpcError(-32000, refused.message));
    if (!authorized(req.headers.authorization)) {
      const missing = !req.headers.authorization;
      return sendJson(
        res,
        401,
        rpcError(
          -32001,
          missing
            ? 'Unauthorized: send "Authorization: Bearer <token>"; the token is in the storage dir\'s mcp-server-token file or WEFT_MCP_TOKEN.'
            : 'Unauthorized: the bearer token is wrong.',
          { code: missing ? 'TOKEN_MISSING' : 'TOKEN_INVALID' },
        ),
        { 'www-authenticate': 'Bearer realm="weft"' },
      );
    }
    const body = await readBody(req);
    if (body === undefined)
      return sendJson(res, 413, rpcError(-32600, `Request body larger than ${MAX_BODY_BYTES} bytes.`, { code: 'TOO_LARGE' }));
    // Parsed once here and handed on, instead of each layer reading the body again.
    const parsedBody = parseJson(body);
    return isSessionRequest(req, parsedBody) ? serveLegacy(req, res, origin, parsedBody) : serveModern(req, res, origin, parsedBody);
  };

  const sweep = setInterval(() => {
    const cutoff = Date.now() - SESSION_IDLE_MS;
    for (const [id, session] of sessions) if (session.lastUsed < cutoff) closeSession(id);
  }, 60_000).unref();
  return {
    handle: (req, res, origin) =>
      handle(req, res, origin).catch((error: unknown) => {
        options.onError(error instanceof Error ? error : new Error(errorMessage(error)));
        if (!res.headersSent) sendJson(res, 500, rpcError(-32603, `Internal error: ${errorMessage(error)}`, { code: 'INTERNAL' }));
        else res.end();
      }),
    close: async () => {
      clearInterval(sweep);
      for (const id of [...sessions.keys()]) closeSession(id);
      await modern.close();
    },
  };
}

export async function startHttpServer(options: HttpServeOptions): Promise<HttpServerHandle> {
  const endpoint = createMcpEndpoint(options);
  const server = createServer((req, res) => {
    const origin = requestOrigin(req);
    const path = new URL(req.url ?? '/', origin).pathname;
    if (path !== MCP_PATH) return sendJson(res, 404, rpcError(-32601, `Not found: weft serves MCP at ${MCP_PATH}.`, { code: 'NOT_FOUND' }));
    void endpoint.handle(req, res, origin);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${bracketed(options.host)}:${address.port}${MCP_PATH}`,
    close: async () => {
      await endpoint.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
