import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxProxy, type ProxyRefusal, type SandboxProxy } from './network-proxy.js';

let dir: string;
let upstream: Server;
let port: number;
let proxy: SandboxProxy;
const refused: ProxyRefusal[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weft-proxy-test-'));
  upstream = createServer((incoming, response) => {
    let body = '';
    incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
    incoming.on('end', () =>
      response.end(`${incoming.method} ${incoming.url} ${body} proxy-connection=${incoming.headers['proxy-connection'] ?? 'none'}`),
    );
  });
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', () => done()));
  port = (upstream.address() as AddressInfo).port;
  proxy = await startSandboxProxy(join(dir, 'proxy.sock'), [`127.0.0.1:${port}`], (refusal) => refused.push(refusal));
});

afterAll(async () => {
  await proxy.close();
  await new Promise((done) => upstream.close(done));
  await rm(dir, { recursive: true, force: true });
});

/** One request through the proxy in absolute form, as a client with HTTP_PROXY sends it. */
function viaProxy(agent: Agent, url: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        socketPath: join(dir, 'proxy.sock'),
        agent,
        method: 'POST',
        path: url,
        headers: { Host: new URL(url).host, 'Proxy-Connection': 'Keep-Alive', 'Content-Type': 'text/plain' },
      },
      (answer) => {
        let text = '';
        answer.on('data', (chunk: Buffer) => (text += chunk.toString()));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe('the sandbox network proxy', () => {
  it('forwards each request of a kept-alive connection on its own (as Claude Code sends its MCP requests)', async () => {
    const socket = connect(join(dir, 'proxy.sock'));
    let text = '';
    let wake = () => undefined as void;
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      wake();
    });
    const answered = (count: number) =>
      new Promise<void>((resolve) => {
        wake = () => {
          if ((text.match(/proxy-connection=none/g) ?? []).length >= count) resolve();
        };
        wake();
      });
    const post = (path: string, body: string) =>
      `POST http://127.0.0.1:${port}${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nProxy-Connection: Keep-Alive\r\nConnection: keep-alive\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    socket.write(post('/mcp', 'initialize'));
    await answered(1);
    socket.write(post('/mcp?x=1', 'initialized'));
    await answered(2);
    socket.destroy();
    expect(text.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
    expect(text).toContain('POST /mcp initialize proxy-connection=none');
    expect(text).toContain('POST /mcp?x=1 initialized proxy-connection=none');
  });

  it('refuses a host the rules do not allow with 403 naming the setting, and reports it', async () => {
    const agent = new Agent();
    const answer = await viaProxy(agent, `http://127.0.0.1:${port + 1 === 65536 ? 1 : port + 1}/`, '');
    agent.destroy();
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('[run.sandbox] network = { allow = ["127.0.0.1"] }');
    expect(refused).toContainEqual({ host: '127.0.0.1', port: port + 1 === 65536 ? 1 : port + 1 });
  });

  it('tunnels CONNECT to an allowed host and refuses others', async () => {
    const exchange = (target: string, then: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(join(dir, 'proxy.sock'));
        let text = '';
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes('200 Connection Established\r\n\r\n') && !text.includes('HTTP/1.1 200 OK')) socket.write(then);
        });
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
        socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
      });
    const allowed = await exchange(`127.0.0.1:${port}`, 'GET /tunnel HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(allowed).toContain('200 Connection Established');
    expect(allowed).toContain('GET /tunnel  proxy-connection=none');
    const denied = await exchange('example.invalid:443', '');
    expect(denied).toContain('403 Forbidden');
    expect(refused).toContainEqual({ host: 'example.invalid', port: 443 });
  });
});
