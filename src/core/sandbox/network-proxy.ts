/**
 * The only way out of a sandbox's network namespace: an HTTP proxy on a Unix socket that
 * weft runs outside the sandbox (inside, `socat` turns 127.0.0.1:3128 into that socket).
 * It takes `CONNECT host:port` (HTTPS and any TCP) and plain `GET http://host/…` requests,
 * lets through only the hosts `network.allow` names (plus what weft adds for a stage, such
 * as a CLI's model endpoint), and answers anything else 403 with the reason, reporting the
 * refusal. Names are resolved here, outside, so a sandbox has no DNS of its own to leak through.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

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

/** Where a request goes: `CONNECT h:p` or an absolute `http://` URI. */
function target(requestLine: string): { host: string; port: number; connect: boolean; path?: string } | undefined {
  const [method, uri] = requestLine.split(' ');
  if (method === undefined || uri === undefined) return undefined;
  if (method.toUpperCase() === 'CONNECT') {
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(uri);
    return match ? { host: match[1]!.replace(/^\[|\]$/g, ''), port: Number(match[2]), connect: true } : undefined;
  }
  try {
    const url = new URL(uri);
    if (url.protocol !== 'http:') return undefined;
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80), connect: false, path: `${url.pathname}${url.search}` };
  } catch {
    return undefined;
  }
}

function refuse(socket: Socket, status: string, text: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
}

export interface SandboxProxy {
  /** Adds hosts for as long as the run lasts (e.g. a CLI stage's model endpoint). */
  allow(hosts: readonly string[]): void;
  close(): Promise<void>;
}

/**
 * @example
 * const proxy = await startSandboxProxy('/tmp/weft-sbx/proxy.sock', ['registry.npmjs.org'], (refused) => report(refused));
 * await proxy.close();
 */
export async function startSandboxProxy(socketPath: string, allow: readonly string[], onRefused: (refusal: ProxyRefusal) => void): Promise<SandboxProxy> {
  const allowed = new Set(allow);
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => undefined);
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_HEAD_BYTES) refuse(client, '431 Request Header Fields Too Large', 'weft sandbox proxy: request head too large\n');
        return;
      }
      client.off('data', onData);
      client.pause();
      const text = head.subarray(0, end).toString('latin1');
      const rest = head.subarray(end + 4);
      const [requestLine = '', ...headers] = text.split('\r\n');
      const to = target(requestLine);
      if (to === undefined) return refuse(client, '400 Bad Request', 'weft sandbox proxy: only CONNECT host:port and http:// requests are proxied\n');
      if (!hostAllowed(allowed, to.host, to.port)) {
        onRefused({ host: to.host, port: to.port });
        return refuse(client, '403 Forbidden', `weft sandbox: connection to ${to.host}:${to.port} refused; [run.sandbox] network = { allow = ["${to.host}"] } allows it\n`);
      }
      const upstream = connect({ host: to.host, port: to.port });
      open.add(upstream);
      upstream.on('close', () => open.delete(upstream));
      upstream.on('error', (error) => {
        if (!client.writableEnded) refuse(client, '502 Bad Gateway', `weft sandbox proxy: ${to.host}:${to.port}: ${error.message}\n`);
      });
      upstream.once('connect', () => {
        if (to.connect) client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        else {
          const kept = headers.filter((line) => !/^(proxy-connection|connection|proxy-authorization):/i.test(line));
          const [method, , version] = requestLine.split(' ');
          upstream.write(`${method} ${to.path} ${version}\r\n${[...kept, 'Connection: close'].join('\r\n')}\r\n\r\n`);
        }
        if (rest.length > 0) upstream.write(rest);
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    allow: (hosts) => hosts.forEach((host) => allowed.add(host)),
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
