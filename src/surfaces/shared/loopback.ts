/**
 * Whether a listen address is loopback-only: the one case where `weft mcp start --http`
 * may run without a bearer token.
 */

/** @example isLoopbackHost('127.0.0.1') // → true; isLoopbackHost('0.0.0.0') // → false */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}
