/**
 * The access tokens `weft mcp login` stored, as `Authorization` headers on the run's HTTP
 * and SSE servers, for processes that connect to those servers themselves (the coding
 * CLIs of `backend = "cli"` stages): they get the token weft would send, written into
 * their MCP config. A token is passed only to the endpoint it was obtained for, only while
 * it has not expired (the CLI cannot refresh it), and never over a header the entry sets
 * itself or a bearer variable it names. The tokens are registered as secrets, so they are
 * redacted wherever weft logs.
 */
import type { McpServerConfig } from '../config/server-config.js';
import { readOAuthState, tokenExpiry } from './token-store.js';

function hasAuthorization(server: McpServerConfig): boolean {
  return server.bearerTokenEnvVar !== undefined || Object.keys(server.headers).some((name) => name.toLowerCase() === 'authorization');
}

/**
 * @example
 * const servers = await withStoredAccessTokens(await loadServers(), storageDir, Date.now());
 * // the 'remote' entry now has headers.Authorization = 'Bearer <its stored access token>'
 */
export async function withStoredAccessTokens(
  servers: readonly McpServerConfig[],
  storageDir: string,
  now: number,
): Promise<McpServerConfig[]> {
  return Promise.all(
    servers.map(async (server) => {
      if (
        (server.type !== 'http' && server.type !== 'sse') ||
        server.url === undefined ||
        server.oauth?.grant !== undefined ||
        hasAuthorization(server)
      )
        return server;
      const state = await readOAuthState(storageDir, server.name).catch(() => undefined);
      const token = state?.tokens?.access_token;
      if (state === undefined || token === undefined || state.serverUrl !== new URL(server.url).href) return server;
      const expiry = tokenExpiry(state);
      if (expiry !== undefined && expiry.getTime() <= now) return server;
      return { ...server, headers: { ...server.headers, Authorization: `Bearer ${token}` } };
    }),
  );
}
