// Scope selection for logins (challenge scope, step-up union) and the anonymous challenge probe.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InsufficientScopeError } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { loginScope, probeAuthChallenge, stepUpScope } from './auth-challenge.js';

describe('loginScope', () => {
  it('requests exactly the challenge scope', () => {
    expect(loginScope({ scope: 'mcp:basic' })).toBe('mcp:basic');
  });

  it('adds the caller’s scope once each', () => {
    expect(loginScope({ scope: 'mcp:basic' }, 'mcp:basic mcp:write')).toBe('mcp:basic mcp:write');
  });

  it('names none without a challenge scope, so auth() falls back to scopes_supported or omits it', () => {
    expect(loginScope({})).toBeUndefined();
  });
});

describe('stepUpScope', () => {
  const refused = new InsufficientScopeError({ requiredScope: 'mcp:basic mcp:write' });

  it('joins the granted scope with the one a 403 insufficient_scope requires, found through causes', () => {
    const toolError = new WeftError('TOOL_FAILED', "[s] tool 'x' failed: Insufficient scope", { cause: refused });
    expect(stepUpScope(toolError, 'mcp:basic offline_access')).toBe('mcp:basic offline_access mcp:write');
    expect(stepUpScope(refused)).toBe('mcp:basic mcp:write');
  });

  it('is undefined for other errors and for a 403 that names no scope', () => {
    expect(stepUpScope(new WeftError('TOOL_FAILED', 'boom'), 'mcp:basic')).toBeUndefined();
    expect(stepUpScope(new InsufficientScopeError({}), 'mcp:basic')).toBeUndefined();
    expect(stepUpScope('not an error')).toBeUndefined();
  });
});

describe('probeAuthChallenge', () => {
  let server: Server | undefined;
  const seen: { method?: string; body: string; headers: IncomingMessage['headers'] }[] = [];

  afterEach(async () => {
    seen.length = 0;
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  async function serve(status: number, headers: Record<string, string> = {}): Promise<URL> {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push({ method: request.method, body, headers: request.headers });
        response.writeHead(status, headers).end('{}');
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  }

  it('reads scope and resource_metadata from a 401, asking with an anonymous ping', async () => {
    const url = await serve(401, {
      'www-authenticate': 'Bearer scope="mcp:basic", resource_metadata="http://127.0.0.1/custom/metadata.json"',
    });
    expect(await probeAuthChallenge(url, { type: 'http', headers: { 'x-team': 'blue' } })).toEqual({
      scope: 'mcp:basic',
      resourceMetadataUrl: new URL('http://127.0.0.1/custom/metadata.json'),
    });
    expect(seen).toEqual([
      expect.objectContaining({ method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 'weft-auth-probe', method: 'ping' }) }),
    ]);
    expect(seen[0]?.headers).toMatchObject({ 'x-team': 'blue' });
    expect(seen[0]?.headers.authorization).toBeUndefined();
  });

  it('opens the event stream for sse servers', async () => {
    const url = await serve(401, { 'www-authenticate': 'Bearer scope="read"' });
    expect(await probeAuthChallenge(url, { type: 'sse' })).toEqual({ scope: 'read' });
    expect(seen[0]).toMatchObject({ method: 'GET', headers: { accept: 'text/event-stream' } });
  });

  it('gives an empty challenge for a server that does not ask, or does not answer', async () => {
    expect(await probeAuthChallenge(await serve(200), { type: 'http' })).toEqual({});
    expect(await probeAuthChallenge(new URL('http://127.0.0.1:1/mcp'), { type: 'http' })).toEqual({});
  });
});
