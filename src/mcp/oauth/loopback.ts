/**
 * The loopback redirect target of `weft mcp login`: an HTTP server on 127.0.0.1 (the
 * port of the previous login when it is free, else an ephemeral one) that waits for the
 * browser to come back to `/callback` with the authorization response. A response whose
 * `state` does not match is refused and the wait goes on, so a stray or forged request
 * cannot end the login.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { registerSecret } from '../../core/redact.js';

export const CALLBACK_PATH = '/callback';

export interface AuthorizationResponse {
  code: string;
  /** RFC 9207 issuer identifier, when the authorization server sends one. */
  iss?: string;
}

export interface CallbackServer {
  redirectUrl: URL;
  /** Settles with the first authorization response carrying the expected `state`. */
  response: Promise<AuthorizationResponse>;
  close(): Promise<void>;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body style="font-family: sans-serif; margin: 3em"><h1>${title}</h1><p>${text}</p></body></html>`;

export async function startCallbackServer(expectedState: string, preferredPort?: number): Promise<CallbackServer> {
  let settle!: { resolve: (value: AuthorizationResponse) => void; reject: (error: Error) => void };
  const response = new Promise<AuthorizationResponse>((resolve, reject) => {
    settle = { resolve, reject };
  });
  response.catch(() => {});
  let done = false;

  const handle = (request: IncomingMessage, reply: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET' || url.pathname !== CALLBACK_PATH)
      return send(reply, 404, PAGE('Not found', 'This is the sign-in helper of weft.'));
    const params = url.searchParams;
    if (done || params.get('state') !== expectedState) {
      return send(
        reply,
        400,
        PAGE(
          'Sign-in link not recognised',
          'This response does not belong to the weft login in progress. Start the login again from your terminal.',
        ),
      );
    }
    const error = params.get('error');
    const code = params.get('code');
    if (error !== null || !code) {
      done = true;
      send(reply, 400, PAGE('Sign-in failed', 'The authorization server did not grant access. See your terminal.'));
      // The description comes from the network: show the error code only, and only its safe characters.
      const shown = (error ?? 'no code in the response').replace(/[^A-Za-z0-9_ -]/g, '').slice(0, 80);
      settle.reject(new Error(`the authorization server refused: ${shown}`));
      return;
    }
    done = true;
    registerSecret(code, 'oauth-code');
    send(reply, 200, PAGE('Signed in', 'weft is authorized. You can close this tab and return to your terminal.'));
    const iss = params.get('iss');
    settle.resolve({ code, ...(iss !== null ? { iss } : {}) });
  };

  const server = createServer(handle);
  const port = await listen(server, preferredPort ?? 0).catch((error: NodeJS.ErrnoException) => {
    if (preferredPort && (error.code === 'EADDRINUSE' || error.code === 'EACCES')) return listen(server, 0);
    throw error;
  });
  return {
    redirectUrl: new URL(`http://127.0.0.1:${port}${CALLBACK_PATH}`),
    response,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(reply: ServerResponse, status: number, html: string): void {
  reply.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close' });
  reply.end(html);
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, '127.0.0.1');
  });
}
