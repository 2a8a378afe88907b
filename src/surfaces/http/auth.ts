/**
 * Who may use the API: a bearer token (`Authorization: Bearer <token>`) or a session cookie
 * that `POST /api/v1/login` hands out for the token. The cookie holds a random session id
 * known only to this process — never the token — and is `HttpOnly` and `SameSite=Strict`,
 * so page scripts cannot read it and other sites cannot send it.
 */
import { randomBytes } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { bearerCheck } from '../shared/bearer-check.js';
import { HttpFailure } from './error-response.js';

export const SESSION_COOKIE = 'weft_session';
/** Sessions outlive a working day, not a week: a lost laptop's cookie stops working. */
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const MAX_SESSIONS = 10_000;

export interface ApiAuth {
  /** False when the server runs with --no-auth. */
  readonly required: boolean;
  /** Checks `token` and starts a session on the response; throws UNAUTHORIZED on a wrong token. */
  login(context: Context, token: string): void;
  logout(context: Context): void;
  /** Middleware: lets authenticated requests through, answers 401 otherwise. */
  guard: MiddlewareHandler;
}

/** `token` undefined turns authentication off (loopback only; the CLI enforces it). */
export function apiAuth(token: string | undefined, clock: () => number = Date.now): ApiAuth {
  const bearer = token === undefined ? () => true : bearerCheck(token);
  const sessions = new Map<string, number>();

  const sessionValid = (context: Context): boolean => {
    const id = getCookie(context, SESSION_COOKIE);
    if (id === undefined) return false;
    const expiresAt = sessions.get(id);
    if (expiresAt === undefined) return false;
    if (expiresAt > clock()) return true;
    sessions.delete(id);
    return false;
  };

  return {
    required: token !== undefined,
    login(context, given) {
      if (!bearer(`Bearer ${given}`)) throw new HttpFailure('UNAUTHORIZED', 'Unauthorized: the token is wrong.');
      if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
      const id = randomBytes(32).toString('base64url');
      sessions.set(id, clock() + SESSION_TTL_MS);
      setCookie(context, SESSION_COOKIE, id, { httpOnly: true, sameSite: 'Strict', path: '/', maxAge: SESSION_TTL_MS / 1000 });
    },
    logout(context) {
      const id = getCookie(context, SESSION_COOKIE);
      if (id !== undefined) sessions.delete(id);
      deleteCookie(context, SESSION_COOKIE, { path: '/' });
    },
    guard: async (context, next) => {
      if (token !== undefined && !sessionValid(context)) {
        const header = context.req.header('authorization');
        if (!bearer(header)) {
          context.header('www-authenticate', 'Bearer realm="weft"');
          throw new HttpFailure(
            'UNAUTHORIZED',
            header ? 'Unauthorized: the bearer token is wrong.' : 'Unauthorized: send "Authorization: Bearer <token>" or log in first.',
          );
        }
      }
      await next();
    },
  };
}
