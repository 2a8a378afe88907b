/**
 * The Hono app of `weft serve`: Host/Origin checks on every request (DNS-rebinding
 * protection), a body limit, the API routes under `/api/v1` behind the token or the
 * session cookie, the OpenAPI document, the dashboard's static assets at `/`, and the
 * one place where errors become JSON answers.
 */
import { localhostAllowedHostnames, validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { API_PREFIX, defineRoute, mountRoutes, type ApiRoute } from './api-route.js';
import type { ApiAuth } from './auth.js';
import { errorResponse, HttpFailure } from './error-response.js';
import type { HttpDeps } from './http-deps.js';
import { openApiDocument } from './openapi.js';
import { mcpServerRoutes } from './routes/mcp-servers.js';
import { runActionRoutes } from './routes/run-actions.js';
import { runEventRoutes } from './routes/run-events.js';
import { runPairRoutes } from './routes/run-pair.js';
import { runRoutes } from './routes/runs.js';
import { runArtifactRoutes } from './routes/run-artifacts.js';
import { scheduleRoutes } from './routes/schedules.js';
import { sessionRoutes } from './routes/session.js';
import { usageRoutes } from './routes/usage.js';
import { workflowRoutes } from './routes/workflows.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface StaticAsset {
  contentType: string;
  body: string | Uint8Array;
}

export interface HttpAppOptions {
  deps: HttpDeps;
  auth: ApiAuth;
  /** Hostnames accepted in Host and Origin headers. */
  allowedHosts: readonly string[];
  version: string;
  /** The dashboard, keyed by URL path ('/', '/app.js', …). */
  assets: ReadonlyMap<string, StaticAsset>;
}

export interface HttpApp {
  app: Hono;
  /** Every API route, as the OpenAPI document describes them. */
  routes: readonly ApiRoute[];
}

export function createHttpApp(options: HttpAppOptions): HttpApp {
  const { deps, auth } = options;
  const hosts = [...new Set([...localhostAllowedHostnames(), ...options.allowedHosts])];
  const app = new Hono();

  app.onError((error, context) => {
    const { status, body } = errorResponse(error);
    return context.json(body, status);
  });
  app.notFound(() => {
    throw new HttpFailure('NOT_FOUND', 'No such route.');
  });

  app.use('*', async (context, next) => {
    const checked = validateHostHeader(context.req.header('host'), hosts);
    const refused = checked.ok ? validateOriginHeader(context.req.header('origin'), hosts) : checked;
    if (!refused.ok) throw new HttpFailure('FORBIDDEN_HOST', refused.message);
    await next();
  });
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new HttpFailure('TOO_LARGE', `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
    },
  });
  // No route reads a GET's body, and asking for it would make the node adapter build a whole
  // web Request (headers, AbortController, stream) for every read.
  app.use(`${API_PREFIX}/*`, (context, next) =>
    context.req.method === 'GET' || context.req.method === 'HEAD' ? next() : limitBody(context, next),
  );

  const routes: ApiRoute[] = [
    ...sessionRoutes(auth),
    ...runRoutes(deps),
    ...runActionRoutes(deps),
    ...runEventRoutes(deps),
    ...runPairRoutes(deps),
    ...runArtifactRoutes(deps),
    ...mcpServerRoutes(deps),
    ...workflowRoutes(deps),
    ...usageRoutes(deps),
    ...scheduleRoutes(deps),
  ];
  let document: unknown;
  routes.push(
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      summary: 'This API as an OpenAPI 3.1 document',
      auth: false,
      produces: { 'application/json': 'OpenAPI 3.1 document' },
      async handle({ context }) {
        document ??= openApiDocument(routes, options.version);
        return context.json(document);
      },
    }),
  );
  mountRoutes(app, routes, auth.guard);

  app.get('*', (context, next) => {
    const asset = options.assets.get(context.req.path);
    if (!asset) return next();
    return context.body(typeof asset.body === 'string' ? asset.body : new Uint8Array(asset.body), 200, {
      'content-type': asset.contentType,
      // The page may load only what weft itself serves.
      'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
    });
  });
  return { app, routes };
}
