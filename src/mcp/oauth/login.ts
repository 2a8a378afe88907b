/**
 * `weft mcp login <name>` / `logout <name>` for remote (http, sse) servers: the
 * interactive OAuth authorization code + PKCE flow with a loopback redirect, run by the
 * SDK's `auth()` (metadata discovery, dynamic client registration, code exchange), and
 * the removal of what it stored. Also a read-only status for listings. Before the flow
 * the login asks the endpoint for its `WWW-Authenticate` challenge, so the scope and
 * metadata location are the ones a connection would be told (see auth-challenge.ts).
 */
import { auth } from '@modelcontextprotocol/client';
import { formatDuration } from '../../core/duration.js';
import { WeftError, errorMessage } from '../../core/errors.js';
import { redactSecrets, registerSecret } from '../../core/redact.js';
import type { McpServerConfig } from '../config/server-config.js';
import { loginScope, probeAuthChallenge } from './auth-challenge.js';
import { WeftOAuthProvider, randomState, type WeftOAuthProviderOptions } from './client-provider.js';
import { startCallbackServer } from './loopback.js';
import { withLegacyIssuerTolerance } from './legacy-issuer.js';
import { deleteOAuthState, oauthStatePath, readOAuthState, tokenExpiry } from './token-store.js';

export interface LoginMcpServerOptions {
  config: McpServerConfig;
  storageDir: string;
  /** Shows the authorization URL to the person: prints it, opens a browser. A rejection fails the login. */
  openUrl: (url: URL) => void | Promise<void>;
  signal?: AbortSignal;
  /** How long to wait for the browser to come back. Default 5 minutes. */
  timeoutMs?: number;
  /**
   * Scope wanted on top of what the server's challenge names, e.g. after a 403
   * `insufficient_scope` (see `stepUpScope`); the login requests the union.
   */
  scope?: string;
  /** Where `oauth.client_secret_env` is looked up. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface McpLoginResult {
  server: string;
  serverUrl: string;
  /** The token file (mode 0600). */
  file: string;
  scope?: string;
  /** When the access token expires (ISO 8601), if the server said. */
  expiresAt?: string;
  refreshable: boolean;
}

export interface McpOAuthStatus {
  server: string;
  loggedIn: boolean;
  serverUrl?: string;
  expiresAt?: string;
  refreshable: boolean;
}

export const DEFAULT_LOGIN_TIMEOUT_MS = 5 * 60_000;

/** The endpoint OAuth protects for this server; only http and sse servers log in. */
export function oauthServerUrl(config: McpServerConfig): URL {
  if (config.type !== 'http' && config.type !== 'sse') {
    throw new WeftError('USAGE', `'${config.name}' is a ${config.type} server; OAuth login is for http and sse servers`, {
      data: { server: config.name },
    });
  }
  if (!config.url)
    throw new WeftError('CONFIG_INVALID', `'${config.name}' has no url — set url = "https://…"`, { data: { server: config.name } });
  return new URL(config.url);
}

/**
 * Runs the browser flow and stores the tokens: a loopback redirect server, the
 * authorization URL handed to `openUrl`, the redirect's `code` (with the right `state`)
 * exchanged for tokens. Resolves once the tokens are stored.
 */
export async function loginMcpServer(options: LoginMcpServerOptions): Promise<McpLoginResult> {
  const { config, storageDir } = options;
  const serverUrl = oauthServerUrl(config);
  if (config.oauth?.grant !== undefined) {
    const grant = config.oauth.grant === 'client_credentials' ? 'the client credentials grant' : 'cross-app access through your IdP';
    throw new WeftError(
      'USAGE',
      `'${config.name}' uses ${grant}: weft gets its tokens when it connects, no login needed — try 'weft mcp test ${config.name}'`,
      {
        data: { server: config.name, field: 'oauth.grant' },
      },
    );
  }
  const previous = await readOAuthState(storageDir, config.name);
  const previousPort =
    previous?.serverUrl === serverUrl.href && previous.redirectUrl ? Number(new URL(previous.redirectUrl).port) || undefined : undefined;
  // A config problem (a client secret's variable unset) fails before any port is opened.
  const identity = clientIdentity(config, options.env ?? process.env);
  const state = randomState();
  const callback = await startCallbackServer(state, previousPort);
  try {
    const provider = new WeftOAuthProvider({
      server: config.name,
      serverUrl,
      storageDir,
      mode: 'login',
      redirectUrl: callback.redirectUrl,
      state,
      ...identity,
    });
    const challenge = await probeAuthChallenge(serverUrl, {
      type: config.type === 'sse' ? 'sse' : 'http',
      headers: withoutAuthorization(config.headers),
    });
    const scope = loginScope(challenge, options.scope);
    const hints = {
      ...(scope ? { scope } : {}),
      ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}),
    };
    const first = await step(config.name, 'starting the authorization', () =>
      withLegacyIssuerTolerance(serverUrl, (check) => auth(provider, { serverUrl, forceReauthorization: true, ...hints, ...check })),
    );
    if (first === 'REDIRECT') {
      const authorizationUrl = provider.authorizationUrl;
      if (!authorizationUrl)
        throw new WeftError('INTERNAL', `[${config.name}] the OAuth flow asked for a redirect without an authorization URL`);
      const opened = Promise.resolve().then(() => options.openUrl(authorizationUrl));
      const response = await waitFor(config.name, callback.response, opened, options.signal, options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS);
      const second = await step(config.name, 'exchanging the authorization code', () =>
        withLegacyIssuerTolerance(serverUrl, (check) =>
          auth(provider, {
            serverUrl,
            ...hints,
            ...check,
            authorizationCode: response.code,
            ...(response.iss !== undefined ? { iss: response.iss } : {}),
          }),
        ),
      );
      if (second !== 'AUTHORIZED')
        throw new WeftError('MCP_SERVER_FAILED', `[${config.name}] login failed: the authorization server did not issue tokens`, {
          data: { server: config.name },
        });
    }
    const stored = await provider.finishLogin();
    const expiry = tokenExpiry(stored);
    return {
      server: config.name,
      serverUrl: serverUrl.href,
      file: oauthStatePath(storageDir, config.name),
      ...(stored.tokens?.scope ? { scope: stored.tokens.scope } : {}),
      ...(expiry ? { expiresAt: expiry.toISOString() } : {}),
      refreshable: Boolean(stored.tokens?.refresh_token),
    };
  } finally {
    await callback.close();
  }
}

/** Deletes the stored client registration and tokens of `name`; false when there were none. */
export function logoutMcpServer(name: string, storageDir: string): Promise<boolean> {
  return deleteOAuthState(storageDir, name);
}

/** Whether `name` has stored tokens (for `weft mcp list`); reads the file only. */
export async function mcpOAuthStatus(name: string, storageDir: string): Promise<McpOAuthStatus> {
  const stored = await readOAuthState(storageDir, name);
  if (!stored?.tokens) return { server: name, loggedIn: false, refreshable: false, ...(stored ? { serverUrl: stored.serverUrl } : {}) };
  const expiry = tokenExpiry(stored);
  return {
    server: name,
    loggedIn: true,
    serverUrl: stored.serverUrl,
    ...(expiry ? { expiresAt: expiry.toISOString() } : {}),
    refreshable: Boolean(stored.tokens.refresh_token),
  };
}

/** The client identity `oauth = { … }` configures: a pre-registered client, or a metadata document URL. */
function clientIdentity(
  config: McpServerConfig,
  env: Readonly<Record<string, string | undefined>>,
): Pick<WeftOAuthProviderOptions, 'preRegistered' | 'clientMetadataUrl'> {
  const oauth = config.oauth;
  if (!oauth) return {};
  if (oauth.clientId !== undefined) {
    const secretEnv = oauth.clientSecretEnv;
    if (secretEnv === undefined) return { preRegistered: { client_id: oauth.clientId } };
    const secret = env[secretEnv];
    if (!secret) {
      throw new WeftError(
        'CONFIG_INVALID',
        `[${config.name}] oauth.client_secret_env names ${secretEnv}, which is not set — set ${secretEnv} to the client secret and log in again`,
        {
          data: { server: config.name, field: 'oauth.client_secret_env' },
        },
      );
    }
    registerSecret(secret, secretEnv);
    return { preRegistered: { client_id: oauth.clientId, client_secret: secret } };
  }
  return oauth.clientMetadataUrl !== undefined ? { clientMetadataUrl: oauth.clientMetadataUrl } : {};
}

/** The config's headers for the anonymous probe: an Authorization header would hide the challenge. */
function withoutAuthorization(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'));
}

async function step<T>(server: string, what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (WeftError.is(error)) throw error;
    throw new WeftError('MCP_SERVER_FAILED', `[${server}] login failed while ${what}: ${redactSecrets(errorMessage(error))}`, {
      data: { server },
      cause: error,
    });
  }
}

/** The browser's answer, or why there will be none (openUrl failed, aborted, timed out, refused). */
function waitFor<T>(
  server: string,
  response: Promise<T>,
  opened: Promise<unknown>,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const fail = (message: string, cause?: unknown) => {
      cleanup();
      reject(
        new WeftError('MCP_SERVER_FAILED', `[${server}] login failed: ${message}`, {
          data: { server },
          ...(cause !== undefined ? { cause } : {}),
        }),
      );
    };
    const onAbort = () => fail('cancelled');
    const timer = setTimeout(() => fail(`no answer from the browser within ${formatDuration(timeoutMs)} — run the login again`), timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    opened.catch((error: unknown) => fail(`could not open the authorization URL: ${redactSecrets(errorMessage(error))}`, error));
    response.then(
      (value) => {
        cleanup();
        resolve(value);
      },
      (error: unknown) => fail(errorMessage(error), error),
    );
  });
}
