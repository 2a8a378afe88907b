/**
 * `weft mcp start --http` against real clients: the bearer token (401), Host and Origin
 * validation (403), 20 clients at once, subscriptions and progress over sessions, a
 * 2026-era client and its subscriptions/listen streams, and the rules for --no-auth.
 */
import { spawn } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkListenSubscriptions, MODERN_CLIENT_OPTIONS } from './helpers/mcp-listen.js';
import {
  call,
  connectHttp,
  createRun,
  endAllRuns,
  makeWorkspace,
  startHttp,
  waitForStatus,
  type HttpServer,
  type RunView,
  type Workspace,
} from './helpers/mcp-server-kit.js';
import { runCli } from './helpers/run-cli.js';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

interface Raw {
  status: number;
  type: string | undefined;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** A POST with exactly these headers (fetch would not let a test set Host). */
function rawPost(url: string, headers: Record<string, string>, body = INITIALIZE): Promise<Raw> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': String(Buffer.byteLength(body)),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: text, headers: res.headers }));
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

/** POSTs `size` bytes in 64 KiB writes, declared up front or chunked; the server may answer before the body is through. */
function bigPost(
  url: string,
  headers: Record<string, string>,
  size: number,
  framing: 'declared' | 'chunked',
): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  const length: Record<string, string> = framing === 'declared' ? { 'content-length': String(size) } : { 'transfer-encoding': 'chunked' };
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...length, ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, body: text })).once('error', reject);
      },
    );
    req.once('error', reject);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let sent = 0;
    const write = (): void => {
      while (sent < size) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

describe('weft mcp start --http', () => {
  let ws: Workspace;
  let server: HttpServer;
  let client: Client;

  beforeAll(async () => {
    ws = makeWorkspace('weft-mcp-http-');
    server = await startHttp(ws);
    client = await connectHttp(server);
  });

  afterAll(async () => {
    if (client) {
      await endAllRuns(client);
      await client.close();
    }
    await server?.stop();
    ws?.remove();
  }, 90_000);

  it('prints where it listens and keeps its generated token in a 0600 file', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.stderr()).toContain(
      `weft MCP server listening on ${server.url} (bearer token in ${join(ws.storageDir, 'mcp-server-token')} (new))`,
    );
    expect(statSync(join(ws.storageDir, 'mcp-server-token')).mode & 0o777).toBe(0o600);
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('answers 401 JSON without the token or with a wrong one, 403 JSON for a foreign Origin or Host', async () => {
    const host = new URL(server.url).host;
    const missing = await rawPost(server.url, {});
    expect(missing).toMatchObject({ status: 401, type: 'application/json', headers: { 'www-authenticate': 'Bearer realm="weft"' } });
    expect(JSON.parse(missing.body)).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32001, message: expect.stringContaining('Authorization: Bearer <token>'), data: { code: 'TOKEN_MISSING' } },
    });
    const wrong = await rawPost(server.url, { authorization: 'Bearer not-the-token' });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.body)).toMatchObject({ error: { data: { code: 'TOKEN_INVALID' } } });

    const auth = { authorization: `Bearer ${server.token}` };
    const origin = await rawPost(server.url, { ...auth, origin: 'http://evil.example.com' });
    expect(origin).toMatchObject({ status: 403, type: expect.stringContaining('application/json') });
    expect(JSON.parse(origin.body)).toMatchObject({ error: { message: expect.stringContaining('evil.example.com') } });
    const foreignHost = await rawPost(server.url, { ...auth, host: 'evil.example.com' });
    expect(foreignHost.status).toBe(403);
    expect(JSON.parse(foreignHost.body)).toMatchObject({ error: { message: expect.stringContaining('Invalid Host') } });
    // Without a token a foreign Host is still refused first: rebinding protection does not depend on auth.
    expect((await rawPost(server.url, { host: 'evil.example.com' })).status).toBe(403);

    const local = await rawPost(server.url, {
      ...auth,
      host: `localhost:${new URL(server.url).port}`,
      origin: `http://localhost:${new URL(server.url).port}`,
    });
    expect(local.status).toBe(200);
    expect(local.headers['mcp-session-id']).toBeTruthy();
    expect((await rawPost(server.url, { ...auth, host })).status).toBe(200);
    const lostSession = await rawPost(
      server.url,
      { ...auth, 'mcp-session-id': 'no-such-session' },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    );
    expect(lostSession.status).toBe(404);
    expect(JSON.parse(lostSession.body)).toMatchObject({ error: { data: { code: 'SESSION_NOT_FOUND' } } });
    const elsewhere = await rawPost(server.url.replace('/mcp', '/other'), auth);
    expect(elsewhere.status).toBe(404);
  });

  it('answers a 50 MB body with 413 JSON whether its length is declared or it comes chunked', async () => {
    const auth = { authorization: `Bearer ${server.token}` };
    const answers = [
      await bigPost(server.url, auth, 50 * 1024 * 1024, 'declared'),
      await bigPost(server.url, auth, 50 * 1024 * 1024, 'chunked'),
    ];
    const tooLarge = {
      status: 413,
      body: {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Request body larger than 4194304 bytes.', data: { code: 'TOO_LARGE' } },
      },
    };
    expect(answers.map((answer) => ({ status: answer.status, body: JSON.parse(answer.body) as unknown }))).toEqual([tooLarge, tooLarge]);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('serves 20 clients creating and reading runs at once without an error or a lost run', async () => {
    const clients = await Promise.all(Array.from({ length: 20 }, () => connectHttp(server)));
    try {
      const outcomes = await Promise.all(
        clients.map(async (each, index) => {
          const created = await call(each, 'weft_run_create', {
            runs: [
              { workflow: 'quick.toml', start: false, labels: { load: 'yes', client: String(index) } },
              { workflow: 'quick.toml', start: false, labels: { load: 'yes', client: String(index) } },
            ],
          });
          expect(created.isError, created.text).toBe(false);
          const ids = (created.data.results as { run: RunView }[]).map((result) => result.run.id);
          for (const id of ids)
            expect((await call(each, 'weft_run_get', { run_id: id })).data.run).toMatchObject({ id, status: 'submitted' });
          const mine = await call(each, 'weft_run_search', { labels: { client: String(index) } });
          expect((mine.data.runs as RunView[]).map((run) => run.id).sort()).toEqual([...ids].sort());
          return ids;
        }),
      );
      const all = await call(client, 'weft_run_search', { labels: { load: 'yes' }, limit: 100 });
      expect((all.data.runs as RunView[]).map((run) => run.id).sort()).toEqual(outcomes.flat().sort());
      expect(new Set(outcomes.flat()).size).toBe(40);
    } finally {
      await Promise.all(clients.map((each) => each.close()));
    }
  }, 120_000);

  it('notifies subscribers and reports gather progress over a session', async () => {
    const run = await createRun(client, 'quick.toml');
    const updated = new Promise<string>((resolve) =>
      client.setNotificationHandler('notifications/resources/updated', (notification) => resolve(notification.params.uri)),
    );
    await client.subscribeResource({ uri: `weft://runs/${run.id}/events` });
    await call(client, 'weft_run_interact', { run_id: run.id, action: 'approve' });
    expect(await updated).toBe(`weft://runs/${run.id}/events`);
    const progress: number[] = [];
    const gathered = await call(client, 'weft_run_gather', { run_ids: [run.id], timeout_seconds: 60 }, (update) =>
      progress.push(update.progress),
    );
    expect(gathered.data).toMatchObject({ timed_out: false, runs: [{ status: 'succeeded' }] });
    expect(progress.at(-1)).toBe(1);
  }, 90_000);

  it('serves a 2026-era client statelessly', async () => {
    const modern = new Client({ name: 'modern', version: '1.0.0' }, MODERN_CLIENT_OPTIONS);
    await modern.connect(
      new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${server.token}` } } }),
    );
    try {
      expect((await modern.listTools()).tools).toHaveLength(7);
      const run = await createRun(modern, { workflow: 'quick.toml', start: false, labels: { era: 'modern' } });
      expect((await call(modern, 'weft_run_get', { run_id: run.id })).data.run).toMatchObject({ id: run.id, labels: { era: 'modern' } });
    } finally {
      await modern.close();
    }
  });

  it("streams runs' changes to a 2026-era client's subscriptions/listen, and refuses bad URIs", async () => {
    const modern = new Client({ name: 'modern-listen', version: '1.0.0' }, MODERN_CLIENT_OPTIONS);
    await modern.connect(
      new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${server.token}` } } }),
    );
    try {
      await checkListenSubscriptions(modern, ws);
    } finally {
      await modern.close();
    }
  }, 90_000);
});

describe('weft mcp start --http options', () => {
  it('uses WEFT_MCP_TOKEN instead of the stored token', async () => {
    const ws = makeWorkspace('weft-mcp-env-');
    const token = 'env-token-0123456789abcdef';
    const server = await startHttp(ws, [], { WEFT_MCP_TOKEN: token });
    try {
      expect(server.stderr()).toContain('(bearer token from WEFT_MCP_TOKEN)');
      expect((await rawPost(server.url, { authorization: `Bearer ${token}` })).status).toBe(200);
      expect((await rawPost(server.url, { authorization: 'Bearer 0123456789abcdef-other' })).status).toBe(401);
    } finally {
      await server.stop();
      ws.remove();
    }
  });

  it('keeps WEFT_MCP_TOKEN from the runners it starts and their command stages', async () => {
    const ws = makeWorkspace('weft-mcp-env-');
    writeFileSync(join(ws.dir, 'token.toml'), `[nodes.show]\nkind = "command"\nrun = 'echo "token=\${WEFT_MCP_TOKEN:-absent}"'\n`);
    const server = await startHttp(ws, [], { WEFT_MCP_TOKEN: 'env-token-0123456789abcdef' });
    const client = await connectHttp(server);
    try {
      const run = await createRun(client, { workflow: 'token.toml', auto_approve: true });
      expect((await waitForStatus(client, run.id, ['succeeded'])).status).toBe('succeeded');
      const finished = await call(client, 'weft_run_events', { run_id: run.id, types: ['stage-finished'] });
      expect((finished.data.events as { payload: { output: string } }[]).map((event) => event.payload.output)).toEqual(['token=absent']);
    } finally {
      await client.close();
      await server.stop();
      ws.remove();
    }
  });

  it('serves without a token with --no-auth on loopback, and refuses --no-auth elsewhere', async () => {
    const ws = makeWorkspace('weft-mcp-noauth-');
    try {
      const server = await startHttp(ws, ['--no-auth']);
      try {
        expect(server.stderr()).toContain('(no authentication)');
        const client = await connectHttp(server);
        expect((await client.listTools()).tools).toHaveLength(7);
        await client.close();
        expect((await rawPost(server.url, { host: 'evil.example.com' })).status).toBe(403);
      } finally {
        await server.stop();
      }
      const refused = await runCli(['--storage-dir', ws.storageDir, 'mcp', 'start', '--http', '--host', '0.0.0.0', '--no-auth'], {
        cwd: ws.dir,
      });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("weft: --no-auth is only allowed on a loopback host (127.0.0.1, localhost, ::1), not '0.0.0.0'");
      const stdio = await runCli(['--storage-dir', ws.storageDir, 'mcp', 'start', '--no-auth'], { cwd: ws.dir });
      expect(stdio).toMatchObject({ code: 2, stderr: expect.stringContaining('--no-auth and --allowed-host apply to --http only') });
      const port = await runCli(['mcp', 'start', '--http', '--port', '99999'], { cwd: ws.dir });
      expect(port).toMatchObject({ code: 2, stderr: expect.stringContaining('--port must be a whole number from 0 to 65535') });
    } finally {
      ws.remove();
    }
  });

  it('stops cleanly on SIGTERM', async () => {
    const ws = makeWorkspace('weft-mcp-stop-');
    try {
      const child = spawn(
        process.execPath,
        [join(process.cwd(), 'bin/weft.js'), '--storage-dir', ws.storageDir, 'mcp', 'start', '--http', '--port', '0'],
        { cwd: ws.dir, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      await new Promise<void>((resolve) =>
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => ((stderr += chunk), stderr.includes('listening on') && resolve())),
      );
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      ws.remove();
    }
  });
});
