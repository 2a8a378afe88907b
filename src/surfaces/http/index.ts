/**
 * The HTTP surface's entry, what `weft serve` loads: one node:http server on one port with
 * the API and the dashboard and weft's MCP server at `/mcp` (the endpoint of
 * `weft mcp start --http`, same token and checks), all behind one request listener.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StaticAsset } from './app.js';
import type { HttpDeps } from './http-deps.js';
import { createWeftRequestHandler } from './request-handler.js';
import { dashboardAssets } from '../dashboard/index.js';

export type { HttpDeps } from './http-deps.js';
export { createWeftRequestHandler, type WeftRequestHandler, type WeftRequestHandlerOptions } from './request-handler.js';
export { dashboardAssets } from '../dashboard/index.js';

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
  const handler = await createWeftRequestHandler({ ...options, assets: options.assets ?? dashboardAssets() });
  const server = createServer(handler.listener);
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
      await handler.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
