/**
 * The bearer-token check every authenticated surface makes (the MCP server over HTTP,
 * `weft serve`'s API): constant time, the token's digest computed once.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * The check of `Authorization` headers against `token`: true for `Bearer <token>`, compared
 * in constant time. The token's digest is computed once, not per request.
 *
 * @example const authorized = bearerCheck(token); authorized(req.headers.authorization) // → true or false
 */
export function bearerCheck(token: string): (authorization: string | null | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
  };
}
