/**
 * The MCP server surface's entry, what `weft mcp start` loads on demand: serve weft's
 * tools, resources and prompts over stdio (default) or Streamable HTTP until the client
 * goes away or the process is told to stop. The run service arrives as a lazy provider,
 * so answering `initialize` and `tools/list` never opens the store.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { RunService } from '../../app/services/run-service.js';
import { RunWatcher } from './run-watcher.js';
import { ListenWatches } from './listen-watches.js';
import { createWeftMcpServer, type McpEra, type WeftMcpServer } from './server.js';
import { ListenCheckingTransport } from './stdio-listen.js';
import { MAX_FRAME_BYTES, StdioFrameLimit } from './stdio-frame-limit.js';
import type { McpServerDeps } from './tool-kit.js';
import type { McpEndpoint } from './http-transport.js';

export type { McpEndpoint };

export { isLoopbackHost } from '../shared/loopback.js';
export { loadServerToken, TOKEN_ENV, TOKEN_FILE_NAME } from './token.js';

/** Well after a client's `initialize` and `tools/list`, which the warm-up must not slow down. */
const WARM_UP_AFTER_MS = 750;

export interface McpServeOptions {
  runs: () => Promise<RunService>;
  cwd: string;
  version: string;
  /** Serve Streamable HTTP instead of stdio. */
  http?: {
    host: string;
    port: number;
    /** `undefined` turns authentication off. */
    token: string | undefined;
    allowedHosts: readonly string[];
    /** `[mcp] fast_path` (see `mcp/fast-path/fast-path-switch.ts`). */
    fastPath?: boolean;
  };
  /** Told where an HTTP server listens, once it does. */
  onListening?: (url: string) => void;
  onError: (error: Error) => void;
  /** Stops serving. */
  signal: AbortSignal;
}

/**
 * weft's MCP tools as an endpoint for a server that serves more than `/mcp` (`weft serve`):
 * the same tools, resources, token and Host/Origin checks as `weft mcp start --http`.
 */
export async function createMcpHttpEndpoint(
  options: Pick<McpServeOptions, 'runs' | 'cwd' | 'version' | 'onError'> & { http: Omit<NonNullable<McpServeOptions['http']>, 'port'> },
): Promise<McpEndpoint> {
  const watcher = new RunWatcher(options.runs);
  const deps: McpServerDeps = { runs: options.runs, cwd: options.cwd, version: options.version, watcher };
  const { createMcpEndpoint } = await import('./http-transport.js');
  const endpoint = createMcpEndpoint({ ...options.http, factory: (era) => createWeftMcpServer(deps, era), deps, onError: options.onError });
  return {
    handle: (req, res, origin) => endpoint.handle(req, res, origin),
    close: async () => {
      await endpoint.close();
      watcher.close();
    },
  };
}

/**
 * One server instance for a transport the caller connects (the library's
 * `createWeftMcpServer`): a 2025-era connection, so resource subscriptions work.
 */
export function createMcpServerInstance(options: Pick<McpServeOptions, 'runs' | 'cwd' | 'version'>): {
  server: McpServer;
  close(): Promise<void>;
} {
  const watcher = new RunWatcher(options.runs);
  const instance = createWeftMcpServer({ ...options, watcher }, 'legacy');
  return {
    server: instance.server,
    close: async () => {
      instance.dispose();
      await instance.server.close();
      watcher.close();
    },
  };
}

/** stdin with the same bound on one message as an HTTP body (stdio-frame-limit.ts says why). */
function boundedStdin(): StdioFrameLimit {
  const limit = new StdioFrameLimit(MAX_FRAME_BYTES, (answer) => void process.stdout.write(`${JSON.stringify(answer)}\n`));
  return process.stdin.pipe(limit);
}

/** Serves until stdin closes (stdio) or `signal` aborts; resolves once everything is closed. */
export async function serveMcp(options: McpServeOptions): Promise<void> {
  const watcher = new RunWatcher(options.runs);
  const deps: McpServerDeps = { runs: options.runs, cwd: options.cwd, version: options.version, watcher };
  const factory = (era: McpEra) => createWeftMcpServer(deps, era);
  // Open the store in the background once the handshake is long over, so the first tool call
  // does not pay for it; errors surface on that call instead.
  const warm = setTimeout(() => void options.runs().catch(() => undefined), WARM_UP_AFTER_MS).unref();
  const stdioInstances: { dispose(): void }[] = [];
  try {
    if (options.http) {
      // node:http and the HTTP transports load only for --http; the HTTP server disposes its sessions' instances itself.
      const { startHttpServer } = await import('./http-transport.js');
      const http = await startHttpServer({ ...options.http, factory, deps, onError: options.onError });
      options.onListening?.(http.url);
      await new Promise<void>((resolve) =>
        options.signal.aborted ? resolve() : options.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      await http.close();
      return;
    }
    const ended = new Promise<void>((resolve) => {
      process.stdin.once('close', resolve);
      process.stdin.once('end', resolve);
      options.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    // 2026-era listen streams get their notifications from the connection's pinned instance.
    let pinned: WeftMcpServer | undefined;
    const listens = new ListenWatches(deps, (uri) => void pinned?.server.server.sendResourceUpdated({ uri }).catch(() => undefined));
    const handle = serveStdio(
      ({ era }) => {
        const instance = factory(era);
        stdioInstances.push(instance);
        if (era === 'modern') pinned = instance;
        return instance.server;
      },
      {
        onerror: options.onError,
        transport: new ListenCheckingTransport(new StdioServerTransport(boundedStdin(), process.stdout), listens),
      },
    );
    await ended;
    await handle.close();
  } finally {
    clearTimeout(warm);
    for (const instance of stdioInstances) instance.dispose();
    watcher.close();
  }
}
