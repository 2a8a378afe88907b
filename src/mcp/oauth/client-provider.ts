/**
 * weft's `OAuthClientProvider` for one MCP server, backed by the token store. The SDK's
 * `auth()` drives discovery, dynamic client registration, authorization code + PKCE and
 * refresh through it. Two modes:
 *
 * - `connect` (the hub): sends stored tokens and lets the SDK refresh them; it never
 *   registers a client or starts a browser flow — when that would be needed it fails
 *   with "needs authorization — run 'weft mcp login <server>'".
 * - `login` (`weft mcp login`): registers when needed, hands the authorization URL to the
 *   login flow and keeps the PKCE verifier and discovery state across the redirect. With
 *   a pre-registered client from config it never registers; with a client ID metadata
 *   document URL the SDK uses that URL as the client_id where the authorization server
 *   supports it, and registers elsewhere.
 */
import { randomBytes } from 'node:crypto';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { WeftError } from '../../core/errors.js';
import { registerSecret } from '../../core/redact.js';
import { emptyOAuthState, readOAuthState, writeOAuthState, type StoredOAuthState } from './token-store.js';

export type OAuthProviderMode = 'connect' | 'login';

export interface WeftOAuthProviderOptions {
  server: string;
  /** The MCP endpoint (the protected resource). */
  serverUrl: URL;
  storageDir: string;
  mode: OAuthProviderMode;
  /** login: the loopback redirect URI of this login. */
  redirectUrl?: URL;
  /** login: the `state` the redirect must carry back. */
  state?: string;
  /** login: a client registered beforehand (from config; the secret from its env variable). */
  preRegistered?: { client_id: string; client_secret?: string };
  /** login: an https client ID metadata document URL (from config). */
  clientMetadataUrl?: string;
}

/** Where a connect-mode provider points if it ever had to build an authorization URL (it never sends one). */
const PLACEHOLDER_REDIRECT = 'http://127.0.0.1/callback';

/** The error for a server that wants OAuth and has no usable tokens. */
export function authorizationRequired(server: string): WeftError {
  return new WeftError('MCP_SERVER_UNAVAILABLE', `[${server}] needs authorization — run 'weft mcp login ${server}'`, {
    data: { server, reason: 'needs_authorization' },
  });
}

export function isAuthorizationRequired(error: unknown): error is WeftError {
  return WeftError.is(error, 'MCP_SERVER_UNAVAILABLE') && error.data.reason === 'needs_authorization';
}

/** A random `state` (or other nonce) for the authorization request. */
export function randomState(): string {
  return randomBytes(24).toString('base64url');
}

export class WeftOAuthProvider implements OAuthClientProvider {
  readonly #options: WeftOAuthProviderOptions;
  readonly #state: string;
  #stored: StoredOAuthState | undefined;
  /** Whether changes go to the file: always when logging in; when connecting, only to a login's own file. */
  #persist = false;
  #loading: Promise<StoredOAuthState> | undefined;
  #authorizationUrl: URL | undefined;

  constructor(options: WeftOAuthProviderOptions) {
    this.#options = options;
    this.#state = options.state ?? randomState();
  }

  /** login: the authorization URL the SDK built, once `auth()` returned `REDIRECT`. */
  get authorizationUrl(): URL | undefined {
    return this.#authorizationUrl;
  }

  get redirectUrl(): string {
    if (this.#options.mode === 'login' && this.#options.redirectUrl) return this.#options.redirectUrl.href;
    return this.#stored?.redirectUrl ?? PLACEHOLDER_REDIRECT;
  }

  /** The SDK uses this as the client_id when the authorization server supports client ID metadata documents. */
  get clientMetadataUrl(): string | undefined {
    return this.#options.mode === 'login' ? this.#options.clientMetadataUrl : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'weft',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return this.#state;
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    const stored = await this.#load();
    const info = stored.clientInformation;
    if (this.#options.mode === 'connect') {
      // Registering or sending a person to a browser is `weft mcp login`'s job.
      if (!info || !stored.tokens) throw authorizationRequired(this.#options.server);
      return info;
    }
    const preRegistered = this.#options.preRegistered;
    if (preRegistered) {
      registerSecret(preRegistered.client_secret, 'oauth-client-secret');
      // Always the configured client (a changed secret takes effect); the SDK stamps it with the
      // issuer and stores it, and that stored copy is what the hub's refreshes use.
      return { ...preRegistered };
    }
    // A metadata document URL is its own client_id, valid for any redirect it lists.
    if (info && info.client_id === this.clientMetadataUrl) return info;
    // A registration for another loopback port cannot take this login's redirect.
    return info && registeredFor(info, this.redirectUrl) ? info : undefined;
  }

  async saveClientInformation(clientInformation: StoredOAuthClientInformation): Promise<void> {
    const stored = await this.#load();
    stored.clientInformation = clientInformation;
    if (this.#options.mode === 'login') stored.redirectUrl = this.redirectUrl;
    await this.#save();
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    return (await this.#load()).tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    const stored = await this.#load();
    registerSecret(tokens.access_token, 'oauth-access-token');
    registerSecret(tokens.refresh_token, 'oauth-refresh-token');
    stored.tokens = tokens;
    stored.tokensSavedAt = Date.now();
    await this.#save();
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    if (this.#options.mode === 'connect') throw authorizationRequired(this.#options.server);
    this.#authorizationUrl = authorizationUrl;
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    if (this.#options.mode === 'connect') return;
    registerSecret(codeVerifier, 'oauth-code-verifier');
    const stored = await this.#load();
    stored.codeVerifier = codeVerifier;
    await this.#save();
  }

  async codeVerifier(): Promise<string> {
    const verifier = (await this.#load()).codeVerifier;
    if (!verifier) throw new Error(`no PKCE code verifier is stored for '${this.#options.server}' — start the login again`);
    return verifier;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    const stored = await this.#load();
    stored.discoveryState = state;
    await this.#save();
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.#load()).discoveryState;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    const stored = await this.#load();
    if (scope === 'all' || scope === 'client') delete stored.clientInformation;
    if (scope === 'all' || scope === 'tokens') {
      delete stored.tokens;
      delete stored.tokensSavedAt;
    }
    if (scope === 'all' || scope === 'verifier') delete stored.codeVerifier;
    if (scope === 'all' || scope === 'discovery') delete stored.discoveryState;
    await this.#save();
  }

  /** login: drops the spent PKCE verifier once the code was exchanged. */
  async finishLogin(): Promise<StoredOAuthState> {
    const stored = await this.#load();
    delete stored.codeVerifier;
    await this.#save();
    return stored;
  }

  #load(): Promise<StoredOAuthState> {
    this.#loading ??= readOAuthState(this.#options.storageDir, this.#options.server).then((stored) => {
      const { server, serverUrl, mode } = this.#options;
      // Credentials obtained for another endpoint are not sent to this one.
      const own = stored !== undefined && stored.serverUrl === serverUrl.href;
      this.#persist = mode === 'login' || own;
      this.#stored = own ? stored : emptyOAuthState(server, serverUrl.href);
      return this.#stored;
    });
    return this.#loading;
  }

  async #save(): Promise<void> {
    const stored = await this.#load();
    if (this.#persist) await writeOAuthState(this.#options.storageDir, stored);
  }
}

function registeredFor(info: OAuthClientInformationMixed, redirectUrl: string): boolean {
  const uris = (info as { redirect_uris?: unknown }).redirect_uris;
  return Array.isArray(uris) && uris.includes(redirectUrl);
}
