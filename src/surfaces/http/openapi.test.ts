import { describe, expect, it } from 'vitest';
import { createHttpApp } from './app.js';
import { apiAuth } from './auth.js';
import type { HttpDeps } from './http-deps.js';

const unused = (): never => {
  throw new Error('the OpenAPI document is built without calling a service');
};
const deps: HttpDeps = { runs: unused, mcp: unused, workspaceRoot: '/nowhere', storageDir: '/nowhere' };

describe('OpenAPI document', () => {
  it('describes every API route the app serves, with its method, and nothing else', async () => {
    const { app } = createHttpApp({ deps, auth: apiAuth(undefined), allowedHosts: [], version: '1.2.3', assets: new Map() });
    const served = app.routes
      .filter((route) => route.path.startsWith('/api/v1/') && route.method !== 'ALL')
      .map((route) => `${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
    const answer = await app.request('/api/v1/openapi.json', { headers: { host: '127.0.0.1' } });
    const document = (await answer.json()) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const described = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method} ${path}`),
    );
    expect(new Set(served).size).toBeGreaterThan(20);
    expect([...new Set(served)].sort()).toEqual(described.sort());
    expect(document).toMatchObject({ openapi: '3.1.0', info: { version: '1.2.3' } });
    expect(Object.keys(document.paths['/api/v1/runs/{id}/answer']!.post!.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '404', '409', '413']),
    );
  });
});
