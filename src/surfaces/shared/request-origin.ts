/**
 * The origin a request was made to, for resolving its URL: its Host header when that is a
 * plain host name or address, else localhost (a hostile Host never reaches a URL parser).
 * The Host/Origin allow-list itself is checked where each surface accepts requests.
 */
import type { IncomingMessage } from 'node:http';

/** `http://<Host header>` when the header is a plain host name, else `http://localhost`. */
export function requestOrigin(req: IncomingMessage): string {
  return `http://${req.headers.host && /^[\w.:[\]-]+$/.test(req.headers.host) ? req.headers.host : 'localhost'}`;
}
