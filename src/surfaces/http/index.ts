/**
 * The HTTP surface's entry, what `weft serve` loads: one node:http server on one port with
 * the API and the dashboard (Hono, through @hono/node-server's request listener) and weft's
 * MCP server at `/mcp` (the endpoint of `weft mcp start --http`, same token and checks).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createMcpHttpEndpoint } from '../mcp-server/index.js';
import { allowedHostnames, MCP_PATH, requestOrigin } from '../mcp-server/http-transport.js';
import { createHttpApp, type StaticAsset } from './app.js';
import { apiAuth } from './auth.js';
import type { HttpDeps } from './http-deps.js';
import { dashboardAssets } from '../dashboard/index.js';

export type { HttpDeps } from './http-deps.js';

export interface WeftServerOptions {
  host: string;
  port: number;
  /** `undefined` serves without authentication (loopback only; the CLI enforces it). */
  token: string | undefined;
  /** Extra hostnames clients may use in Host/Origin (for a non-loopback bind). */
  allowedHosts: readonly string[];
  deps: HttpDeps;
  version: string;
  /** The dashboard's assets by URL path; default: the dashboard's own. */
  assets?: ReadonlyMap<string, StaticAsset>;
  onError: (error: Error) => void;
}

export interface WeftServerHandle {
  /** `http://host:port` */
  url: string;
  close(): Promise<void>;
}

export async function startWeftServer(options: WeftServerOptions): Promise<WeftServerHandle> {
  const hosts = allowedHostnames(options.host, options.allowedHosts);
  const { app } = createHttpApp({ deps: options.deps, auth: apiAuth(options.token), allowedHosts: hosts, version: options.version, assets: options.assets ?? dashboardAssets() });
  const mcp = await createMcpHttpEndpoint({
    runs: options.deps.runs,
    cwd: options.deps.workspaceRoot,
    version: options.version,
    onError: options.onError,
    http: { host: options.host, token: options.token, allowedHosts: options.allowedHosts },
  });
  const api = getRequestListener(app.fetch, { errorHandler: (error) => options.onError(error instanceof Error ? error : new Error(String(error))) });
  const server = createServer((req, res) => {
    const origin = requestOrigin(req);
    if (new URL(req.url ?? '/', origin).pathname === MCP_PATH) return void mcp.handle(req, res, origin);
    void api(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: async () => {
      await mcp.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
