/** OAuth for remote MCP servers: the token store, the provider the hub uses, and `weft mcp login|logout`. */
export { loginMcpServer, logoutMcpServer, mcpOAuthStatus, oauthServerUrl, DEFAULT_LOGIN_TIMEOUT_MS } from './login.js';
export type { LoginMcpServerOptions, McpLoginResult, McpOAuthStatus } from './login.js';
export { createConnectAuth, type ConnectAuthOptions } from './connect-auth.js';
export {
  WeftOAuthProvider,
  authorizationRequired,
  isAuthorizationRequired,
  type OAuthProviderMode,
  type WeftOAuthProviderOptions,
} from './client-provider.js';
export { oauthStatePath, readOAuthState, type StoredOAuthState } from './token-store.js';
export { loginScope, probeAuthChallenge, stepUpScope, type AuthChallenge, type ProbeOptions } from './auth-challenge.js';
