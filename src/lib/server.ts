/**
 * `weft-runtime/server`: weft's HTTP API, dashboard and MCP server mounted in a Node server
 * of the application's own, or weft's MCP server on stdio or on a transport the application
 * connects. The rules are those of `weft serve`: a bearer token (or the dashboard's login
 * cookie), Host and Origin checks against DNS rebinding; serving without a token is an
 * explicit choice and answers loopback connections only.
 *
 * @module weft-runtime/server
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/server';
import { WeftError } from '../core/errors.js';
import { version } from '../core/package-version.js';
import { registerSecret } from '../core/redact.js';
import { isLoopbackHost } from '../surfaces/shared/loopback.js';
import { serverErrorReporter } from '../surfaces/shared/server-error-report.js';
import { appOf } from './app-of.js';
import type { Weft } from './index.js';

export { WeftError, type WeftErrorCode } from '../core/errors.js';
export type { McpServer };

/** Tokens shorter than this are refused, as `weft serve --token-env` refuses them. */
const MIN_TOKEN_LENGTH = 16;

/** What to serve and who may use it. */
export interface WeftHttpHandlerOptions {
  /** The weft whose runs and MCP servers are served (from `createWeft`). */
  weft: Weft;
  /**
   * The bearer token clients send (`Authorization: Bearer <token>`), at least 16 characters;
   * the dashboard logs in with it once. Required unless `auth` is `false`.
   */
  token?: string;
  /**
   * `false` serves without a token. Then `host` must be a loopback address, and a request
   * that did not arrive on a loopback connection is refused (403) whatever the server
   * listens on. Default `true`.
   */
  auth?: boolean;
  /** The address the server listens on; with `allowedHosts`, what Host and Origin headers may name. Default `127.0.0.1`. */
  host?: string;
  /** More hostnames clients may use in Host and Origin headers (a server reached by a DNS name). */
  allowedHosts?: readonly string[];
  /** Serve the dashboard's page and files at `/` (default `true`). */
  dashboard?: boolean;
  /**
   * Told about errors no client was answered with (a failed stream, a broken connection, a
   * malformed MCP message). Their messages may quote what a client sent, at any length.
   * Default: as `weft serve` reports them, on stderr, one redacted line of at most 300
   * characters each and at most 20 lines a minute (then a count of those left out).
   */
  onError?: (error: Error) => void;
}

/** Calls the application's own handler for a request weft does not serve (Connect/Express `next`). */
export type NextHandler = (error?: unknown) => void;

/** weft's HTTP API, dashboard and MCP endpoint, ready to mount. */
export interface WeftHttpHandler {
  /**
   * A `node:http` request listener: the API at `/api/v1` (its OpenAPI document at
   * `/api/v1/openapi.json`), the MCP server at `/mcp` (Streamable HTTP), the dashboard at `/`.
   * With `next` (Connect or Express middleware), requests for other paths go to `next`;
   * without, they get weft's 404.
   */
  listener(req: IncomingMessage, res: ServerResponse, next?: NextHandler): void;
  /**
   * The API and the dashboard as a web-standard fetch handler (not `/mcp`, which is served
   * on `node:http` only). With `auth: false` it refuses every request: a `Request` carries
   * no connection whose address could be checked.
   */
  fetch(request: Request): Promise<Response>;
  /** Whether weft answers this URL path. */
  handles(pathname: string): boolean;
  /** Ends the MCP sessions. Does not close the `Weft` or the server it is mounted in. */
  close(): Promise<void>;
}

function checkedToken(options: WeftHttpHandlerOptions, host: string): string | undefined {
  if (options.auth === false) {
    if (options.token !== undefined) throw new WeftError('USAGE', 'weft server: give either token or auth: false, not both.');
    if (!isLoopbackHost(host))
      throw new WeftError(
        'USAGE',
        `weft server: auth: false is only allowed on a loopback host (127.0.0.1, localhost, ::1), not '${host}': anyone who can reach it could run commands.`,
      );
    return undefined;
  }
  const token = options.token?.trim();
  if (!token)
    throw new WeftError(
      'USAGE',
      "weft server: a token is required (clients send 'Authorization: Bearer <token>'); pass token, e.g. from process.env, or auth: false for a loopback-only mount.",
    );
  if (token.length < MIN_TOKEN_LENGTH)
    throw new WeftError(
      'USAGE',
      `weft server: the token is shorter than ${MIN_TOKEN_LENGTH} characters; use a long random one, e.g. the output of 'openssl rand -hex 32'.`,
    );
  registerSecret(token, 'weft server token');
  return token;
}

/**
 * @example
 * const weft = await createWeft();
 * const handler = await createWeftHttpHandler({ weft, token: process.env.WEFT_TOKEN });
 * http.createServer((req, res) => handler.listener(req, res, () => myApp(req, res))).listen(8080, '127.0.0.1');
 */
export async function createWeftHttpHandler(options: WeftHttpHandlerOptions): Promise<WeftHttpHandler> {
  const host = options.host ?? '127.0.0.1';
  const token = checkedToken(options, host);
  const app = appOf(options.weft);
  const http = await import('../surfaces/http/index.js');
  const handler = await http.createWeftRequestHandler({
    host,
    token,
    loopbackConnectionsOnly: token === undefined,
    allowedHosts: options.allowedHosts ?? [],
    deps: {
      runs: app.runs,
      schedules: app.schedules,
      triggers: app.triggers,
      mcp: app.mcpRegistry,
      workspaceRoot: app.workspaceRoot,
      storageDir: app.storageDir,
      readArtifact: app.readArtifact,
    },
    version,
    assets: options.dashboard === false ? new Map() : http.dashboardAssets(),
    onError: options.onError ?? serverErrorReporter('weft: server'),
  });
  return {
    listener: (req, res, next) => {
      if (next && !handler.handles(new URL(req.url ?? '/', 'http://localhost').pathname)) return next();
      handler.listener(req, res);
    },
    fetch: (request) => handler.fetch(request),
    handles: (pathname) => handler.handles(pathname),
    close: () => handler.close(),
  };
}

/** The weft an MCP server serves. */
export interface WeftMcpServerOptions {
  /** The weft whose runs the tools create, steer and read (from `createWeft`). */
  weft: Weft;
}

/** An MCP server to connect to a transport of yours. */
export interface WeftMcpServerHandle {
  /** weft's MCP server (tools, resources, prompts); `await server.connect(transport)` serves it on a transport of yours. */
  server: McpServer;
  /** Closes the server and its transport. Does not close the `Weft`. */
  close(): Promise<void>;
}

/**
 * weft's MCP server for a transport the application connects, e.g. an SDK
 * `StdioServerTransport` or a Streamable HTTP transport of its own (which then owns
 * authentication). One instance serves one connection.
 */
export async function createWeftMcpServer(options: WeftMcpServerOptions): Promise<WeftMcpServerHandle> {
  const app = appOf(options.weft);
  const { createMcpServerInstance } = await import('../surfaces/mcp-server/index.js');
  return createMcpServerInstance({ runs: app.runs, cwd: app.workspaceRoot, version });
}

/** What `serveWeftMcpStdio` serves and what stops it. */
export interface ServeWeftMcpStdioOptions {
  weft: Weft;
  /** Stops serving; otherwise it serves until stdin ends. */
  signal?: AbortSignal;
  /** Told about transport errors (a malformed message; its text may quote it, at any length). Default: bounded stderr lines, as for `createWeftHttpHandler`. */
  onError?: (error: Error) => void;
}

/**
 * Serves weft's MCP server on this process's stdin and stdout (what `weft mcp start` does),
 * so the program can be an MCP server entry in a client's configuration. Resolves when
 * stdin ends or `signal` aborts. Nothing else may write to stdout meanwhile.
 */
export async function serveWeftMcpStdio(options: ServeWeftMcpStdioOptions): Promise<void> {
  const app = appOf(options.weft);
  const { serveMcp } = await import('../surfaces/mcp-server/index.js');
  await serveMcp({
    runs: app.runs,
    cwd: app.workspaceRoot,
    version,
    onError: options.onError ?? serverErrorReporter('weft: server'),
    signal: options.signal ?? new AbortController().signal,
  });
}
