/**
 * weft's HTTP surface as one node:http request listener: the API and the dashboard (Hono,
 * through @hono/node-server) and weft's MCP server at `/mcp`, with the same token and
 * Host/Origin checks. `weft serve` listens with it; the library mounts it in a server of
 * the application's own (`weft-runtime/server`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { createMcpHttpEndpoint } from '../mcp-server/index.js';
import { allowedHostnames, MCP_PATH } from '../mcp-server/http-transport.js';
import { requestOrigin } from '../shared/request-origin.js';
import { isLoopbackHost } from '../shared/loopback.js';
import { API_PREFIX } from './api-route.js';
import { createHttpApp, type StaticAsset } from './app.js';
import { apiAuth } from './auth.js';
import { errorResponse, HttpFailure } from './error-response.js';
import type { HttpDeps } from './http-deps.js';

export interface WeftRequestHandlerOptions {
  /** The address the server listens on: with `allowedHosts`, what Host and Origin headers may name. */
  host: string;
  /**
   * `undefined` serves without authentication, on loopback only: `weft serve` checks the
   * address it binds; a handler mounted in someone else's server checks each connection
   * (`loopbackConnectionsOnly`), since it cannot know what that server listens on.
   */
  token: string | undefined;
  /** Refuses (403) requests that did not arrive on a loopback connection. */
  loopbackConnectionsOnly?: boolean;
  /** Extra hostnames clients may use in Host/Origin (for a non-loopback bind). */
  allowedHosts: readonly string[];
  deps: HttpDeps;
  version: string;
  /** The dashboard's assets by URL path; an empty map serves no dashboard. */
  assets: ReadonlyMap<string, StaticAsset>;
  onError: (error: Error) => void;
}

export interface WeftRequestHandler {
  /** Serves one request: `/mcp` to the MCP endpoint, everything else to the Hono app. */
  listener(req: IncomingMessage, res: ServerResponse): void;
  /** The API and the dashboard (not `/mcp`, which is served on node:http directly). */
  app: Hono;
  /** `app.fetch`, or a refusal for every request when only loopback connections may be served (a `Request` has no connection to check). */
  fetch(request: Request): Promise<Response>;
  /** Whether weft answers this path (the API under `/api/v1`, `/mcp`, a dashboard file). */
  handles(pathname: string): boolean;
  close(): Promise<void>;
}

/** Whether the connection was made to a loopback address of this machine (IPv4-mapped IPv6 included). */
export function arrivedOnLoopback(req: { socket: { localAddress?: string | undefined } }): boolean {
  return isLoopbackHost((req.socket.localAddress ?? '').replace(/^::ffff:/i, ''));
}

/**
 * A `Request` built in code (`new Request(url)`) has no Host header, while one a server
 * runtime built from a connection has, and its URL names the same host: the URL's host then
 * stands in for the header, so the Host/Origin check applies to it alike.
 */
function withHostHeader(request: Request): Request {
  if (request.headers.has('host')) return request;
  const headers = new Headers(request.headers);
  headers.set('host', new URL(request.url).host);
  return new Request(request, { headers });
}

export async function createWeftRequestHandler(options: WeftRequestHandlerOptions): Promise<WeftRequestHandler> {
  const hosts = allowedHostnames(options.host, options.allowedHosts);
  const { app } = createHttpApp({
    deps: options.deps,
    auth: apiAuth(options.token),
    allowedHosts: hosts,
    version: options.version,
    assets: options.assets,
  });
  const mcp = await createMcpHttpEndpoint({
    runs: options.deps.runs,
    cwd: options.deps.workspaceRoot,
    version: options.version,
    onError: options.onError,
    http: { host: options.host, token: options.token, allowedHosts: options.allowedHosts },
  });
  const api = getRequestListener(app.fetch, {
    errorHandler: (error) => options.onError(error instanceof Error ? error : new Error(String(error))),
  });
  const refusal = new HttpFailure(
    'FORBIDDEN_HOST',
    'weft is mounted without a token: it answers only connections to a loopback address (127.0.0.1, ::1) on node:http.',
  );
  const refuse = () => {
    const { status, body } = errorResponse(refusal);
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
  return {
    app,
    fetch: async (request) => (options.loopbackConnectionsOnly ? refuse() : app.fetch(withHostHeader(request))),
    listener: (req, res) => {
      if (options.loopbackConnectionsOnly && !arrivedOnLoopback(req)) {
        const { status, body } = errorResponse(refusal);
        return void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      }
      const origin = requestOrigin(req);
      if (new URL(req.url ?? '/', origin).pathname === MCP_PATH) return void mcp.handle(req, res, origin);
      void api(req, res);
    },
    handles: (pathname) =>
      pathname === MCP_PATH || pathname === API_PREFIX || pathname.startsWith(`${API_PREFIX}/`) || options.assets.has(pathname),
    close: () => mcp.close(),
  };
}
