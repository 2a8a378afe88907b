/**
 * The transport of one 2025-era HTTP session (one `Mcp-Session-Id`), chosen by the MCP
 * fast-path switch (`mcp/fast-path/fast-path-switch.ts`): weft's `SessionTransport`, written
 * straight onto node:http, or — with `WEFT_MCP_FAST_PATH=0` or `[mcp] fast_path = false` —
 * the SDK's own `WebStandardStreamableHTTPServerTransport`, reached through a web-standard
 * `Request` and `Response` (node-http-bridge.ts). Both get the same session callbacks, so
 * the HTTP endpoint keeps its sessions the same way on either path.
 *
 * Retired with `SessionTransport` (see its header): when the SDK's transport costs no more
 * than it per call, the plain branch is the only one.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WebStandardStreamableHTTPServerTransport, type Transport } from '@modelcontextprotocol/server';
import { sendWebResponse, toWebRequest } from './node-http-bridge.js';
import { SessionTransport, type SessionTransportOptions } from './session-transport.js';

export interface LegacySession {
  /** What the session's server instance connects to. */
  transport: Transport;
  /** The session's id once `initialize` made one. */
  sessionId(): string | undefined;
  /** Serves one request of the session; `origin` is `http://<Host header>`. */
  serve(req: IncomingMessage, res: ServerResponse, parsedBody: unknown, origin: string): Promise<void>;
}

export function openLegacySession(fastPath: boolean, options: SessionTransportOptions): LegacySession {
  if (fastPath) {
    const transport = new SessionTransport(options);
    return {
      transport,
      sessionId: () => transport.sessionId,
      serve: async (req, res, parsedBody) => transport.handleRequest(req, res, parsedBody),
    };
  }
  const transport = new WebStandardStreamableHTTPServerTransport(options);
  return {
    transport,
    sessionId: () => transport.sessionId,
    serve: async (req, res, parsedBody, origin) => {
      // Its SSE streams end when the client leaves before the answer is complete.
      const aborted = new AbortController();
      res.once('close', () => {
        if (!res.writableFinished) aborted.abort();
      });
      await sendWebResponse(res, await transport.handleRequest(toWebRequest(req, origin, aborted.signal), { parsedBody }));
    },
  };
}
