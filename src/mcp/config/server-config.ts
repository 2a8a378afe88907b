/**
 * A configured MCP server after loading, precedence, interpolation and validation:
 * the one shape the connection manager consumes, whatever file it came from.
 */

export type McpTransportType = 'stdio' | 'http' | 'sse' | 'sandbox';

export type McpConfigSourceKind =
  'workflow' | 'local-mcp-json' | 'project-settings' | 'project-mcp-json' | 'cursor-mcp-json' | 'user-settings' | 'runtime';

export interface McpConfigSource {
  kind: McpConfigSourceKind;
  /** Absolute path of the file the entry came from (or a label such as `workflow.toml`). */
  file: string;
}

export interface McpServerConfig {
  name: string;
  type: McpTransportType;
  /** stdio/sandbox: executable then its arguments, already interpolated. */
  command?: string[];
  /** stdio/sandbox: a shell script run with `/bin/sh -c`, alternative to `command`. */
  script?: string;
  /** stdio: working directory (absolute); defaults to the workspace root. */
  cwd?: string;
  /** stdio/sandbox: extra environment, already interpolated. */
  env: Record<string, string>;
  /** stdio: names of host variables passed through. */
  envVars: string[];
  /** http/sse: endpoint, already interpolated. */
  url?: string;
  headers: Record<string, string>;
  /** http/sse: name of the variable whose value becomes `Authorization: Bearer …`. */
  bearerTokenEnvVar?: string;
  /** http/sse: how `weft mcp login` identifies itself to the authorization server, when not by dynamic registration. */
  oauth?: McpOAuthConfig;
  /** sandbox: the port the server listens on, and how to speak to it. */
  port?: number;
  protocol: 'streamable_http' | 'sse';
  startupTimeoutMs: number;
  toolTimeoutMs: number;
  maxToolTimeoutMs: number;
  enabled: boolean;
  required: boolean;
  /** Allow-list (applied first); undefined means all tools. */
  enabledTools?: string[];
  disabledTools: string[];
  /** Whether `sampling/createMessage` from this server is served by weft's model. */
  sampling: boolean;
  source: McpConfigSource;
}

/**
 * Client identity for OAuth (`oauth = { … }`). Without it `weft mcp login` registers a
 * client dynamically. Secrets are never written in config: only the name of the
 * environment variable that holds one.
 */
export interface McpOAuthConfig {
  /** A client registered with the authorization server beforehand (skips dynamic registration). */
  clientId?: string;
  /** Name of the environment variable holding that client's secret (confidential clients). */
  clientSecretEnv?: string;
  /**
   * An https URL of a client ID metadata document: used as the client_id when the
   * authorization server advertises `client_id_metadata_document_supported`, else weft
   * registers dynamically as usual.
   */
  clientMetadataUrl?: string;
  /**
   * `client_credentials`: machine-to-machine, no person logs in — the hub asks the token
   * endpoint itself with `clientId` and the secret (client_secret_basic) or a JWT signed
   * with `privateKeyFile` (private_key_jwt). `cross_app_access`: enterprise-managed
   * authorization (SEP-990) — the person's ID token from the enterprise IdP (`idTokenEnv`)
   * is exchanged at the IdP (`idpUrl` or `idpTokenEndpoint`) for a JWT authorization grant, which the client
   * (same credentials as above) trades for an access token. Unset: authorization code via
   * `weft mcp login`.
   */
  grant?: McpOAuthGrant;
  /** A PEM private key (absolute path, resolved against the config file) for private_key_jwt. */
  privateKeyFile?: string;
  /** cross_app_access: the enterprise IdP's issuer URL (its token endpoint is discovered). */
  idpUrl?: string;
  /** cross_app_access: the IdP's token endpoint, for IdPs whose metadata cannot be discovered. */
  idpTokenEndpoint?: string;
  /** cross_app_access: weft's client ID at the IdP. */
  idpClientId?: string;
  /** cross_app_access: the variable holding weft's client secret at the IdP, when it has one. */
  idpClientSecretEnv?: string;
  /** cross_app_access: the variable holding the person's ID token from the IdP. */
  idTokenEnv?: string;
}

/** The grants in which weft gets its tokens itself, with no person at a browser. */
export type McpOAuthGrant = 'client_credentials' | 'cross_app_access';

export const MCP_SERVER_NAME = /^[A-Za-z0-9_-]+$/;

export const MCP_DEFAULTS = {
  startupTimeoutMs: 10_000,
  toolTimeoutMs: 60_000,
  maxToolTimeoutFactor: 10,
} as const;
