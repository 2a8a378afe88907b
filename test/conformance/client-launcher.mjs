/**
 * How the conformance suite starts weft's adapter client: `node client-launcher.mjs
 * <bundled weft-client.mjs> <server-url>`. The suite starts all its clients at once and
 * `sse-retry` times its client's reconnect to within 200 ms, so on 2 cores the start-up
 * of the others must not delay that client's timer: every client but the timed one
 * lowers its own CPU priority (nice 10) before loading the bundle. Nothing else changes.
 */
import { setPriority } from 'node:os';
import { pathToFileURL } from 'node:url';

const TIMED_SCENARIOS = new Set(['sse-retry']);
const [bundle] = process.argv.slice(2);
if (!bundle) throw new Error('usage: client-launcher.mjs <weft-client bundle> <server-url>');

if (!TIMED_SCENARIOS.has(process.env.MCP_CONFORMANCE_SCENARIO ?? '')) {
  try {
    setPriority(10);
  } catch {
    // Only an optimisation: a platform that refuses keeps the default priority.
  }
}
await import(pathToFileURL(bundle).href);
