// The RFC 8414 issuer check is forgiven only for a 2025-03-26 server vouching for itself.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { discoverOAuthServerInfo, IssuerMismatchError } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { type IssuerCheck, withLegacyIssuerTolerance } from './legacy-issuer.js';

interface Site {
  /** The protected resource metadata's authorization server, or none (a 2025-03-26 server). */
  resourceMetadataServer?: (origin: string) => string;
  /** The `issuer` the authorization server metadata names. */
  issuer: (origin: string) => string;
}

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

/** One origin on 127.0.0.1 serving the MCP endpoint's metadata the way `site` says. */
async function serve(site: Site): Promise<URL> {
  server = createServer((request, response) => {
    const origin = `http://${request.headers.host ?? ''}`;
    const json = (body: unknown) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.url?.startsWith('/.well-known/oauth-protected-resource') && site.resourceMetadataServer) {
      return json({ resource: `${origin}/mcp`, authorization_servers: [site.resourceMetadataServer(origin)] });
    }
    if (request.url?.startsWith('/.well-known/oauth-authorization-server')) {
      return json({
        issuer: site.issuer(origin),
        authorization_endpoint: `${origin}/oauth/authorize`,
        token_endpoint: `${origin}/oauth/token`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((listening) => server?.listen(0, '127.0.0.1', listening));
  return new URL(`http://127.0.0.1:${(server?.address() as AddressInfo).port}/mcp`);
}

/** Discovery as `auth()` runs it, recording the checks it was asked to run with. */
function discovery(serverUrl: URL, checks: IssuerCheck[]) {
  return (check: IssuerCheck) => {
    checks.push(check);
    return discoverOAuthServerInfo(serverUrl, check);
  };
}

describe('withLegacyIssuerTolerance', () => {
  it('runs the flow again without the check when a server without resource metadata publishes its own origin plus a path', async () => {
    const serverUrl = await serve({ issuer: (origin) => `${origin}/oauth` });
    const checks: IssuerCheck[] = [];
    const info = await withLegacyIssuerTolerance(serverUrl, discovery(serverUrl, checks));
    expect(info.authorizationServerMetadata?.issuer).toBe(`${serverUrl.origin}/oauth`);
    expect(checks).toEqual([{}, { skipIssuerMetadataValidation: true }]);
  });

  it('runs the flow once when the issuer matches', async () => {
    const serverUrl = await serve({ issuer: (origin) => `${origin}/` });
    const checks: IssuerCheck[] = [];
    await withLegacyIssuerTolerance(serverUrl, discovery(serverUrl, checks));
    expect(checks).toEqual([{}]);
  });

  it('keeps refusing a mismatch when the server names its authorization server in resource metadata', async () => {
    const serverUrl = await serve({ resourceMetadataServer: (origin) => origin, issuer: (origin) => `${origin}/oauth` });
    const checks: IssuerCheck[] = [];
    const failure = await withLegacyIssuerTolerance(serverUrl, discovery(serverUrl, checks)).catch((error: unknown) => error);
    expect(IssuerMismatchError.isInstance(failure)).toBe(true);
    expect(checks).toEqual([{}]);
  });

  it('keeps refusing metadata whose issuer is another origin', async () => {
    const serverUrl = await serve({ issuer: () => 'https://elsewhere.example/oauth' });
    const checks: IssuerCheck[] = [];
    const failure = await withLegacyIssuerTolerance(serverUrl, discovery(serverUrl, checks)).catch((error: unknown) => error);
    expect(IssuerMismatchError.isInstance(failure)).toBe(true);
    expect(checks).toEqual([{}]);
  });

  it('passes other failures through untouched', async () => {
    const serverUrl = new URL('http://127.0.0.1:9/mcp');
    const boom = new Error('boom');
    await expect(withLegacyIssuerTolerance(serverUrl, () => Promise.reject(boom))).rejects.toBe(boom);
  });
});
