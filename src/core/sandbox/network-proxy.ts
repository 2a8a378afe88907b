/**
 * The only way out of a sandbox's network namespace: an HTTP proxy on a Unix socket that
 * weft runs outside the sandbox (inside, `socat` turns 127.0.0.1:3128 into that socket).
 * It takes `CONNECT host:port` (HTTPS and any TCP) and plain `GET http://host/…` requests,
 * lets through only the hosts `network.allow` names (plus what weft adds for a stage, such
 * as a CLI's model endpoint), and answers anything else 403 with the reason, reporting the
 * refusal. Names are resolved here, outside, so a sandbox has no DNS of its own to leak through.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';

/** A refused connection: the host and port the sandboxed process asked for. */
export interface ProxyRefusal {
  host: string;
  port: number;
}

const MAX_HEAD_BYTES = 64 * 1024;

/** Whether `host:port` is allowed by entries like `example.com`, `*.example.com`, `localhost:8080`. */
export function hostAllowed(allow: Iterable<string>, host: string, port: number): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  for (const entry of allow) {
    const match = /^(.*?)(?::(\d+))?$/.exec(entry.replace(/^\[([^\]]+)\]/, '$1'));
    const pattern = (match?.[1] ?? entry).toLowerCase();
    const entryPort = match?.[2];
    if (entryPort !== undefined && Number(entryPort) !== port) continue;
    if (pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) : name === pattern) return true;
  }
  return false;
}

/** `CONNECT host:port`'s target. */
function connectTarget(uri: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(uri);
  return match ? { host: match[1]!.replace(/^\[|\]$/g, ''), port: Number(match[2]) } : undefined;
}

/** An absolute `http://` request target (what a client sends its proxy). */
function forwardTarget(uri: string): { host: string; port: number; path: string } | undefined {
  try {
    const url = new URL(uri);
    if (url.protocol !== 'http:') return undefined;
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80), path: `${url.pathname}${url.search}` };
  } catch {
    return undefined;
  }
}

/** Headers for one hop only (RFC 9110 §7.6.1), never passed on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Raw `[name, value, name, value, …]` headers without the hop-by-hop ones. */
function forwardedHeaders(raw: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index + 1 < raw.length; index += 2)
    if (!HOP_BY_HOP.has(raw[index]!.toLowerCase())) kept.push(raw[index]!, raw[index + 1]!);
  return kept;
}

function refusalText(host: string, port: number): string {
  return `weft sandbox: connection to ${host}:${port} refused; [run.sandbox] network = { allow = ["${host}"] } allows it\n`;
}

function refuseSocket(socket: Duplex, status: string, text: string): void {
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

function refuseResponse(response: ServerResponse, status: number, text: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(status, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text) }).end(text);
}

export interface SandboxProxy {
  /** Adds hosts for as long as the run lasts (e.g. a CLI stage's model endpoint). */
  allow(hosts: readonly string[]): void;
  close(): Promise<void>;
}

/**
 * A proxy built on `node:http`, so that a client keeping its connection alive (Claude Code's
 * MCP client does) gets each request forwarded on its own: a hand-rolled proxy that read one
 * request head and then piped bytes sent the second request to a server that had closed.
 * @example
 * const proxy = await startSandboxProxy('/tmp/weft-sbx/proxy.sock', ['registry.npmjs.org'], (refused) => report(refused));
 * await proxy.close();
 */
export async function startSandboxProxy(
  socketPath: string,
  allow: readonly string[],
  onRefused: (refusal: ProxyRefusal) => void,
): Promise<SandboxProxy> {
  const allowed = new Set(allow);
  const tunnels = new Set<Duplex>();
  const permitted = (host: string, port: number): boolean => {
    if (hostAllowed(allowed, host, port)) return true;
    onRefused({ host, port });
    return false;
  };
  // Requests may wait for a person for days (a CLI's permission tool): no request or header timeouts.
  const server = createServer(
    { maxHeaderSize: MAX_HEAD_BYTES, requestTimeout: 0, headersTimeout: 0, keepAliveTimeout: 60_000 },
    (request, response) => {
      const to = forwardTarget(request.url ?? '');
      if (to === undefined)
        return refuseResponse(response, 400, 'weft sandbox proxy: only CONNECT host:port and http:// requests are proxied\n');
      if (!permitted(to.host, to.port)) return refuseResponse(response, 403, refusalText(to.host, to.port));
      const upstream = httpRequest(
        {
          host: to.host,
          port: to.port,
          method: request.method,
          path: to.path,
          headers: forwardedHeaders(request.rawHeaders),
          agent: false,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardedHeaders(answer.rawHeaders));
          answer.pipe(response);
        },
      );
      upstream.on('error', (error) => refuseResponse(response, 502, `weft sandbox proxy: ${to.host}:${to.port}: ${error.message}\n`));
      response.on('close', () => upstream.destroy());
      request.pipe(upstream);
    },
  );
  server.on('connect', (request: IncomingMessage, client: Duplex, head: Buffer) => {
    tunnels.add(client);
    client.on('close', () => tunnels.delete(client));
    client.on('error', () => undefined);
    const to = connectTarget(request.url ?? '');
    if (to === undefined) return refuseSocket(client, '400 Bad Request', 'weft sandbox proxy: CONNECT takes host:port\n');
    if (!permitted(to.host, to.port)) return refuseSocket(client, '403 Forbidden', refusalText(to.host, to.port));
    const upstream = connect({ host: to.host, port: to.port });
    tunnels.add(upstream);
    upstream.on('close', () => tunnels.delete(upstream));
    upstream.on('error', (error) => {
      if (!client.writableEnded) refuseSocket(client, '502 Bad Gateway', `weft sandbox proxy: ${to.host}:${to.port}: ${error.message}\n`);
    });
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      client.pipe(upstream);
      upstream.pipe(client);
    });
  });
  server.on('clientError', (_error, socket) => refuseSocket(socket, '400 Bad Request', 'weft sandbox proxy: malformed request\n'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    allow: (hosts) => hosts.forEach((host) => allowed.add(host)),
    close: async () => {
      for (const socket of tunnels) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
