/**
 * One GET for web_fetch on `node:http(s)`, redirects followed by hand so that every hop's
 * address passes the address policy: the host's literal before the request, the resolved
 * addresses inside the connection's lookup.
 */
import http from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { pipeline } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { WeftError } from '../../core/errors.js';
import type { WebAddressPolicy } from './web-address-policy.js';

/** Browsers stop at 20; a page that needs more than 10 is going round in circles. */
const MAX_REDIRECTS = 10;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface WebResponse {
  /** Where the answer came from, after redirects. */
  url: URL;
  message: IncomingMessage;
}

/** What weft can decode, so pages travel compressed as they would with fetch. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/** The body of an answer, decompressed per its Content-Encoding (unknown encodings pass as they are). */
export function decodedBody(message: IncomingMessage): AsyncIterable<Buffer> {
  const encoding = (message.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) return message;
  // pipeline: an aborted request ends the decoder with the error, and a reader that stops early hangs up.
  return pipeline(message, decoder, () => {});
}

/** Parses the URL and refuses anything but http and https. */
export function parseHttpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new WeftError('FETCH_FAILED', `Invalid URL '${raw}': give an absolute http:// or https:// URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WeftError('FETCH_FAILED', `Refusing to fetch '${raw}': only http:// and https:// URLs are supported, not ${url.protocol}`);
  }
  return url;
}

function getOnce(url: URL, policy: WebAddressPolicy, headers: OutgoingHttpHeaders, signal: AbortSignal): Promise<IncomingMessage> {
  policy.checkLiteral(url);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    // No shared agent: a pooled socket would skip the lookup, and with it the check.
    const request = client.request(url, { method: 'GET', headers, signal, agent: false, lookup: policy.lookup }, resolve);
    request.once('error', reject);
    request.end();
  });
}

/**
 * GETs `start`, following up to 10 redirects, each checked like the first request.
 *
 * @example const { url, message } = await getFollowingRedirects(new URL('https://example.com'), { policy, headers: {}, signal });
 */
export async function getFollowingRedirects(
  start: URL,
  params: { policy: WebAddressPolicy; headers: OutgoingHttpHeaders; signal: AbortSignal },
): Promise<WebResponse> {
  let url = start;
  for (let hops = 0; ; hops += 1) {
    const message = await getOnce(url, params.policy, params.headers, params.signal);
    const location = message.headers.location;
    if (!REDIRECT_STATUSES.has(message.statusCode ?? 0) || location === undefined) return { url, message };
    message.destroy();
    if (hops === MAX_REDIRECTS) {
      throw new WeftError(
        'FETCH_FAILED',
        `Too many redirects: ${start.href} still redirects after ${MAX_REDIRECTS} hops (last to ${location}).`,
        { data: { url: start.href } },
      );
    }
    url = parseHttpUrl(new URL(location, url).href);
  }
}
