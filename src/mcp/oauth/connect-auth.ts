/**
 * The auth provider the hub gives its HTTP and SSE transports: the stored access token
 * on every request, and on a 401 the SDK's `auth()` (refresh with the stored refresh
 * token) through weft's connect-mode `OAuthClientProvider`. Concurrent 401s share one
 * `auth()` run, so parallel calls with an expired token refresh once instead of racing a
 * rotating refresh token into `invalid_grant`.
 */
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import type { AuthProvider } from '@modelcontextprotocol/client';
import { authorizationRequired, WeftOAuthProvider } from './client-provider.js';
import { withLegacyIssuerTolerance } from './legacy-issuer.js';

export interface ConnectAuthOptions {
  server: string;
  /** The MCP endpoint. */
  serverUrl: URL;
  storageDir: string;
}

type UnauthorizedContext = Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0];

export function createConnectAuth(options: ConnectAuthOptions): AuthProvider {
  const provider = new WeftOAuthProvider({ ...options, mode: 'connect' });
  let running: Promise<void> | undefined;

  const reauthorize = async (context: UnauthorizedContext): Promise<void> => {
    // Never logged in: nothing to refresh, and no reason to ask the server anything.
    if (!(await provider.tokens())) throw authorizationRequired(options.server);
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(context.response);
    const result = await withLegacyIssuerTolerance(
      context.serverUrl,
      (check) =>
        auth(provider, {
          serverUrl: context.serverUrl,
          ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
          ...(scope ? { scope } : {}),
          ...check,
          fetchFn: context.fetchFn,
        }),
      context.fetchFn,
    );
    if (result !== 'AUTHORIZED') throw authorizationRequired(options.server);
  };

  return {
    token: async () => (await provider.tokens())?.access_token,
    onUnauthorized: (context) => {
      running ??= reauthorize(context).finally(() => {
        running = undefined;
      });
      return running;
    },
  };
}
