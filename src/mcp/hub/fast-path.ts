/**
 * The one switch over weft's MCP SDK fast path: the code that replaces or reaches into
 * the SDK's internals for speed. `WEFT_MCP_FAST_PATH=0` falls back to the plain SDK path,
 * for an SDK release that breaks them (the SDK packages are pinned to exact versions so
 * none does silently) or to compare the two.
 *
 * What it covers, each file saying which upstream change retires it:
 * - client: `weft-client.ts` (the per-call result-validator probe skipped) and
 *   `direct-tool-calls.ts` (the hub's own `tools/call` on stdio), off with the switch;
 * - `stdio-transport.ts` is weft's own stdio transport either way: it owns process groups,
 *   the watchdog and stderr tails, which the SDK's does not offer, not only speed;
 * - server: `surfaces/mcp-server/session-transport.ts`, `node-http-bridge.ts` and the
 *   build alias of `@modelcontextprotocol/server/_shims` to `sdk-shims.ts`.
 */
import type { HostEnv } from './types.js';

export const FAST_PATH_ENV = 'WEFT_MCP_FAST_PATH';

/** @example mcpFastPath({ WEFT_MCP_FAST_PATH: '0' }) // → false */
export function mcpFastPath(env: HostEnv): boolean {
  return env[FAST_PATH_ENV] !== '0';
}
