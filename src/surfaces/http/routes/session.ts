/**
 * Logging the dashboard in: the token is posted once and traded for an HttpOnly session
 * cookie, so it never sits in a URL, in page storage or in a script's reach.
 */
import * as z from 'zod';
import { defineRoute, type ApiRoute } from '../api-route.js';
import type { ApiAuth } from '../auth.js';

export function sessionRoutes(auth: ApiAuth): ApiRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/login',
      summary: 'Trade the bearer token for a session cookie (weft_session; HttpOnly, SameSite=Strict)',
      auth: false,
      body: z.object({ token: z.string().min(1).max(1024).describe('The token weft serve printed') }).strict(),
      status: 204,
      async handle({ body, context }) {
        auth.login(context, body.token);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/logout',
      summary: 'End the session and clear its cookie',
      status: 204,
      async handle({ context }) {
        auth.logout(context);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/session',
      summary: 'Whether the request is authenticated (401 otherwise)',
      response: z.object({ authenticated: z.literal(true) }),
      async handle() {
        return { json: { authenticated: true } };
      },
    }),
  ];
}
