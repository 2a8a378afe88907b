/**
 * The one switch over weft's MCP SDK fast path: the code that replaces or reaches into
 * the SDK's internals for speed, kept in two folders (one per layer): `mcp/fast-path/`
 * (the hub's client side) and `surfaces/mcp-server/fast-path/` (the server side).
 * `WEFT_MCP_FAST_PATH=0` (or `[mcp] fast_path = false`) falls back to the plain SDK path on both sides, for an SDK release
 * that breaks them (the SDK packages are pinned to exact versions so none does silently)
 * or to compare the two; the differential test and the conformance suites run both.
 *
 * What it turns off, each file saying which upstream change retires it:
 * - client: `weft-client.ts` (the per-call result-validator probe skipped) and
 *   `direct-tool-calls.ts` (the hub's own `tools/call` on stdio): the SDK's `Client` instead;
 * - server: `session-transport.ts` (2025-era HTTP sessions on node:http): the SDK's
 *   `WebStandardStreamableHTTPServerTransport` instead (`legacy-session.ts` picks), and the
 *   build alias of `@modelcontextprotocol/server/_shims` to `sdk-shims.ts`: the SDK's ajv
 *   validator instead.
 * Used on both paths: `stdio-transport.ts` (process groups, the watchdog, stderr tails)
 * and `node-http-bridge.ts` (the SDK serves web-standard requests only).
 */
import type { HostEnv } from '../hub/types.js';

export const FAST_PATH_ENV = 'WEFT_MCP_FAST_PATH';

/**
 * The variable decides when it is set (`0` off, anything else on); else `[mcp] fast_path`
 * from the settings; else on.
 * @example mcpFastPath({ WEFT_MCP_FAST_PATH: '0' }, true) // → false
 */
export function mcpFastPath(env: HostEnv, setting?: boolean): boolean {
  const value = env[FAST_PATH_ENV];
  if (value !== undefined && value !== '') return value !== '0';
  return setting ?? true;
}
