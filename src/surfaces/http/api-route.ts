/**
 * How an API route is declared: method, path, zod schemas for its query, body and answer,
 * and a handler. `mountRoutes` registers each on the Hono app with the parsing and
 * validation every route shares (a bad field answers 400 INVALID_ARGUMENTS naming it), and
 * the same declarations generate the OpenAPI document — a route cannot be served without
 * being described.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type * as z from 'zod';
import { describeIssues } from '../shared/input-issues.js';
import { HttpFailure } from './error-response.js';

export const API_PREFIX = '/api/v1';

export type RouteMethod = 'get' | 'post' | 'delete';

export interface RouteInput<Q, B> {
  /** Path parameters by name (`{id}` → `params.id`). */
  params: Record<string, string>;
  query: Q;
  body: B;
  context: Context;
}

/** What a handler answers: JSON (`status` 200 by default), no content, or a ready `Response` (text, SSE). */
export type RouteResult = { status?: 200 | 201; json: unknown } | { status: 204 } | Response;

export interface ApiRoute<Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: RouteMethod;
  /** OpenAPI style, under /api/v1: `/runs/{id}/events`. */
  path: string;
  summary: string;
  /** Default true: the bearer token or the session cookie is needed. */
  auth?: boolean;
  query?: Q;
  body?: B;
  /** Schema of the JSON answer; absent for 204 and non-JSON answers. */
  response?: z.ZodType;
  /** The answer's status when it succeeds (documentation; the handler decides). */
  status?: 200 | 201 | 204;
  /** Non-JSON answers: media type → description. */
  produces?: Record<string, string>;
  handle(input: RouteInput<z.output<Q>, z.output<B>>): Promise<RouteResult>;
}

/** Keeps the handler's types tied to the schemas. */
export function defineRoute<Q extends z.ZodType = z.ZodUndefined, B extends z.ZodType = z.ZodUndefined>(route: ApiRoute<Q, B>): ApiRoute {
  return route as unknown as ApiRoute;
}

/** `/runs/{id}` → `/api/v1/runs/:id`. */
export function honoPath(path: string): string {
  return API_PREFIX + path.replace(/\{(\w+)\}/g, ':$1');
}

function parsed<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new HttpFailure('INVALID_ARGUMENTS', `Invalid ${where}: ${describeIssues(result.error).replaceAll('arguments', where)}.`);
  return result.data;
}

async function jsonBody(context: Context): Promise<unknown> {
  const text = await context.req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HttpFailure('INVALID_JSON', `The request body is not valid JSON (${(error as Error).message}).`);
  }
}

/** Query parameters: a name given more than once becomes an array (labels). */
function queryObject(context: Context): Record<string, string | string[]> {
  const all = context.req.queries();
  return Object.fromEntries(Object.entries(all).map(([name, values]) => [name, values.length === 1 ? values[0]! : values]));
}

/** Registers `routes` on `app`; `guard` runs first on every route that needs authentication. */
export function mountRoutes(app: Hono, routes: readonly ApiRoute[], guard: MiddlewareHandler): void {
  for (const route of routes) {
    const gate: MiddlewareHandler = route.auth === false ? (_context, next) => next() : guard;
    app.on(route.method.toUpperCase(), honoPath(route.path), gate, async (context) => {
      const query = route.query ? parsed(route.query, queryObject(context), 'query') : undefined;
      const body = route.body ? parsed(route.body, await jsonBody(context), 'body') : undefined;
      const result = await route.handle({ params: context.req.param() as Record<string, string>, query, body, context });
      if (result instanceof Response) return result;
      if (result.status === 204) return context.body(null, 204);
      return context.json(result.json, result.status ?? 200);
    });
  }
}
