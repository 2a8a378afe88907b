/**
 * Cross-app access (enterprise-managed authorization, SEP-990): the person signed in to
 * their company's IdP once, and weft holds the ID token that sign-in produced. For each
 * token it needs, weft exchanges that ID token at the IdP (RFC 8693) for a JWT
 * authorization grant naming the MCP server's authorization server and resource, then
 * trades the grant at that authorization server (RFC 7523 `jwt-bearer`) for an access
 * token. No browser, no consent screen: the IdP's policy decides. The SDK does the
 * exchange (discovering the IdP's token endpoint from `idp_url`, or at `idp_token_endpoint`);
 * weft supplies config and secrets.
 */
import { discoverAndRequestJwtAuthGrant, requestJwtAuthorizationGrant } from '@modelcontextprotocol/client';
import { WeftError, errorMessage } from '../../core/errors.js';
import { registerSecret } from '../../core/redact.js';
import type { McpOAuthConfig } from '../config/server-config.js';
import type { GrantTarget, TokenGrant } from './client-credentials.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

type Env = Readonly<Record<string, string | undefined>>;

function grantProblem(server: string, text: string): WeftError {
  return new WeftError('MCP_SERVER_UNAVAILABLE', `[${server}] ${text}`, { data: { server, reason: 'cross_app_access' } });
}

/** The value of the variable config names in `field`; fails naming the variable and what it should hold. */
function secretFrom(server: string, env: Env, name: string, field: string, holds: string): string {
  const value = env[name];
  if (!value) throw grantProblem(server, `environment variable ${name} (oauth.${field}) is not set — set it to ${holds}`);
  registerSecret(value, name);
  return value;
}

/** The jwt-bearer grant of `server`, its assertion obtained from the IdP on each token request. */
export function crossAppAccessGrant(server: string, oauth: McpOAuthConfig, env: Env): TokenGrant {
  const idpUrl = oauth.idpUrl ?? oauth.idpTokenEndpoint ?? '';
  const idpClientId = oauth.idpClientId ?? '';
  // Read up front, so a missing variable fails the connection before any request is sent.
  const idToken = secretFrom(server, env, oauth.idTokenEnv ?? '', 'id_token_env', `the ID token your sign-in to ${idpUrl} issued`);
  const idpSecret =
    oauth.idpClientSecretEnv === undefined
      ? undefined
      : secretFrom(server, env, oauth.idpClientSecretEnv, 'idp_client_secret_env', `the client secret of '${idpClientId}' at ${idpUrl}`);
  return {
    type: JWT_BEARER,
    params: async (scope: string | undefined, target: GrantTarget) => {
      const { authorizationServerUrl, resourceUrl } = target;
      if (!authorizationServerUrl || !resourceUrl) {
        throw grantProblem(
          server,
          'the server publishes no protected resource metadata, which cross-app access needs to name its authorization server and resource — use weft mcp login instead',
        );
      }
      let assertion: string;
      try {
        const request = {
          audience: authorizationServerUrl,
          resource: resourceUrl,
          idToken,
          clientId: idpClientId,
          ...(idpSecret !== undefined ? { clientSecret: idpSecret } : {}),
          ...(scope ? { scope } : {}),
        };
        const granted =
          oauth.idpTokenEndpoint !== undefined
            ? await requestJwtAuthorizationGrant({ ...request, tokenEndpoint: oauth.idpTokenEndpoint })
            : await discoverAndRequestJwtAuthGrant({ ...request, idpUrl });
        assertion = granted.jwtAuthGrant;
      } catch (error) {
        throw grantProblem(
          server,
          `the IdP ${idpUrl} refused the ID token exchange: ${errorMessage(error)} — check oauth.idp_client_id and that ${oauth.idTokenEnv ?? 'the ID token'} holds a current ID token`,
        );
      }
      registerSecret(assertion, `${server}.oauth.jwt_authorization_grant`);
      const params = new URLSearchParams({ grant_type: JWT_BEARER, assertion });
      if (scope) params.set('scope', scope);
      return params;
    },
  };
}
