/**
 * The MCP fast-path switch on the server side: `weft mcp start --http` serves 2025-era
 * sessions with weft's own transport, or with `WEFT_MCP_FAST_PATH=0` with the SDK's
 * `WebStandardStreamableHTTPServerTransport`. Both answer a session's requests alike; they
 * differ in how a lone request's answer travels (weft: one JSON body; the SDK: an SSE
 * stream), which is how the test tells that the switch reached the server.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, startHttp, type HttpServer, type Workspace } from './helpers/mcp-server-kit.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'switch-test', version: '1.0.0' } },
};

async function post(
  server: HttpServer,
  body: unknown,
  sessionId?: string,
): Promise<{ status: number; type: string; sessionId: string | null; text: string }> {
  const response = await fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } : {}),
    },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    sessionId: response.headers.get('mcp-session-id'),
    text: await response.text(),
  };
}

const PATHS: { path: string; env: Record<string, string>; settings?: string; answers: string }[] = [
  { path: 'the fast path', env: {}, answers: 'application/json' },
  { path: 'the plain SDK path', env: { WEFT_MCP_FAST_PATH: '0' }, answers: 'text/event-stream' },
  {
    path: 'the plain SDK path by setting ([mcp] fast_path = false)',
    env: {},
    settings: '[mcp]\nfast_path = false\n',
    answers: 'text/event-stream',
  },
  {
    path: 'the fast path, the variable winning over the setting',
    env: { WEFT_MCP_FAST_PATH: '1' },
    settings: '[mcp]\nfast_path = false\n',
    answers: 'application/json',
  },
];

describe.each(PATHS)('weft mcp start --http on $path', ({ env, settings, answers }) => {
  let ws: Workspace;
  let server: HttpServer;

  beforeAll(async () => {
    ws = makeWorkspace();
    if (settings !== undefined) {
      mkdirSync(ws.storageDir, { recursive: true });
      writeFileSync(join(ws.storageDir, 'settings.toml'), settings);
    }
    server = await startHttp(ws, ['--no-auth'], env);
  });

  afterAll(async () => {
    await server?.stop();
    ws?.remove();
  });

  it(`opens a session and answers its requests (a lone answer as ${answers})`, async () => {
    const initialized = await post(server, INITIALIZE);
    expect(initialized.status).toBe(200);
    expect(initialized.type).toContain(answers);
    expect(initialized.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(initialized.text).toContain('"protocolVersion":"2025-06-18"');
    await post(server, { jsonrpc: '2.0', method: 'notifications/initialized' }, initialized.sessionId!);
    const listed = await post(server, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, initialized.sessionId!);
    expect(listed.status).toBe(200);
    expect(listed.type).toContain(answers);
    expect(listed.text).toContain('"name":"weft_run_get"');
  });
});
