/**
 * Grants in which no person is at a browser: the client credentials grant (the MCP auth
 * extension for machine-to-machine servers, SEP-1046) and cross-app access (SEP-990, see
 * `cross-app-access.ts`). The hub asks the token endpoint itself whenever the server
 * answers 401, authenticating with `client_secret_basic` when config names the secret's
 * variable, or a `private_key_jwt` assertion signed with the configured PEM key. Tokens stay
 * in memory: a new process simply asks again, and nothing is left on disk to steal.
 * weft implements the provider rather than using the SDK's `ClientCredentialsProvider` /
 * `PrivateKeyJwtProvider` / `CrossAppAccessProvider` because those warn on the console when
 * no expected issuer is given, and the config has none to give.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type {
  AddClientAuthentication,
  OAuthClientMetadata,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { createPrivateKeyJwtAuth } from '@modelcontextprotocol/client';
import { WeftError } from '../../core/errors.js';
import { registerSecret } from '../../core/redact.js';
import type { McpOAuthConfig } from '../config/server-config.js';

/** How the client proves who it is: a shared secret, or a private key the server knows the public half of. */
export type ClientCredential = { kind: 'secret'; secret: string } | { kind: 'private_key'; pem: string; algorithm: string };

/** The JWS algorithm a key signs with: RSA → RS256, EC by curve, Ed25519 → EdDSA. */
export function signingAlgorithm(key: KeyObject): string | undefined {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType !== 'ec') return undefined;
  const curves: Record<string, string> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };
  return curves[key.asymmetricKeyDetails?.namedCurve ?? ''];
}

function credentialProblem(server: string, text: string): WeftError {
  return new WeftError('MCP_SERVER_UNAVAILABLE', `[${server}] ${text}`, { data: { server, reason: 'client_credentials' } });
}

/** The credential the config names, read from the environment or the key file; fails naming the field to fix. */
export function readClientCredential(
  server: string,
  oauth: McpOAuthConfig,
  env: Readonly<Record<string, string | undefined>>,
): ClientCredential {
  if (oauth.privateKeyFile !== undefined) {
    let pem: string;
    try {
      pem = readFileSync(oauth.privateKeyFile, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw credentialProblem(
        server,
        `cannot read oauth.private_key_file ${oauth.privateKeyFile} (${code}) — point it at the PEM private key of client '${oauth.clientId ?? ''}'`,
      );
    }
    let algorithm: string | undefined;
    try {
      algorithm = signingAlgorithm(createPrivateKey(pem));
    } catch {
      throw credentialProblem(
        server,
        `oauth.private_key_file ${oauth.privateKeyFile} is not a PEM private key — export the key as PKCS#8 or SEC1/PKCS#1 PEM`,
      );
    }
    if (!algorithm)
      throw credentialProblem(
        server,
        `oauth.private_key_file ${oauth.privateKeyFile} holds a key weft cannot sign JWTs with — use an RSA, EC (P-256/384/521) or Ed25519 key`,
      );
    registerSecret(pem, `${server}.oauth.private_key_file`);
    return { kind: 'private_key', pem, algorithm };
  }
  const name = oauth.clientSecretEnv ?? '';
  const secret = env[name];
  if (!secret)
    throw credentialProblem(
      server,
      `environment variable ${name} (oauth.client_secret_env) is not set — set it to the client secret of '${oauth.clientId ?? ''}'`,
    );
  registerSecret(secret, name);
  return { kind: 'secret', secret };
}

/** The authorization server and resource that discovery found, which a grant may have to name. */
export interface GrantTarget {
  authorizationServerUrl?: string;
  resourceUrl?: string;
}

/** What goes in the token request besides the client's authentication. */
export interface TokenGrant {
  /** The `grant_type` value. */
  readonly type: string;
  /** The request's parameters for `scope` (undefined when none is to be asked for). */
  params(scope: string | undefined, target: GrantTarget): URLSearchParams | Promise<URLSearchParams>;
}

export const CLIENT_CREDENTIALS_GRANT: TokenGrant = {
  type: 'client_credentials',
  params: (scope) => {
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) params.set('scope', scope);
    return params;
  },
};

export class MachineClientProvider implements OAuthClientProvider {
  readonly #clientId: string;
  readonly #credential: ClientCredential;
  readonly #grant: TokenGrant;
  readonly #target: GrantTarget = {};
  #tokens: StoredOAuthTokens | undefined;
  readonly addClientAuthentication: AddClientAuthentication | undefined;

  constructor(clientId: string, credential: ClientCredential, grant: TokenGrant = CLIENT_CREDENTIALS_GRANT) {
    this.#clientId = clientId;
    this.#credential = credential;
    this.#grant = grant;
    this.addClientAuthentication =
      credential.kind === 'private_key'
        ? createPrivateKeyJwtAuth({ issuer: clientId, subject: clientId, privateKey: credential.pem, alg: credential.algorithm })
        : undefined;
  }

  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'weft',
      redirect_uris: [],
      grant_types: [this.#grant.type],
      token_endpoint_auth_method: this.#credential.kind === 'secret' ? 'client_secret_basic' : 'private_key_jwt',
    };
  }

  clientInformation(): StoredOAuthClientInformation {
    return this.#credential.kind === 'secret'
      ? { client_id: this.#clientId, client_secret: this.#credential.secret }
      : { client_id: this.#clientId };
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    registerSecret(tokens.access_token, `${this.#clientId}.oauth.access_token`);
    this.#tokens = tokens;
  }

  redirectToAuthorization(): void {
    throw new Error(`the ${this.#grant.type} grant never sends anyone to a browser`);
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new Error(`the ${this.#grant.type} grant uses no PKCE verifier`);
  }

  /** Called by the SDK's `auth()` after discovery: the issuer of the server's authorization server. */
  saveAuthorizationServerUrl(url: string): void {
    this.#target.authorizationServerUrl = url;
  }

  /** Called by the SDK's `auth()` after discovery: the resource the token is for. */
  saveResourceUrl(url: string): void {
    this.#target.resourceUrl = url;
  }

  prepareTokenRequest(scope?: string): URLSearchParams | Promise<URLSearchParams> {
    return this.#grant.params(scope, this.#target);
  }
}
