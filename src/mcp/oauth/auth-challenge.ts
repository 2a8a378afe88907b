/**
 * What a protected MCP server says about the authorization it wants, and the scope a
 * login asks for. The MCP spec's scope selection: the `scope` of the server's
 * `WWW-Authenticate` challenge, else the protected-resource metadata's
 * `scopes_supported` (the SDK's `auth()` falls back to that when no scope is passed),
 * else none. `weft mcp login` runs before any connection, so it asks the endpoint
 * itself (`probeAuthChallenge`) for the challenge a connection would get; its
 * `resource_metadata` also points discovery at metadata kept at a non-standard path.
 */
import {
  InsufficientScopeError,
  LATEST_PROTOCOL_VERSION,
  computeScopeUnion,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/client';

export interface AuthChallenge {
  /** Space-separated scopes the server asked for. */
  scope?: string;
  /** Where the protected-resource metadata is (RFC 9728), when the server said. */
  resourceMetadataUrl?: URL;
}

export interface ProbeOptions {
  /** `http` sends a JSON-RPC POST; `sse` opens the event stream (GET). */
  type: 'http' | 'sse';
  /** Headers from config (never an Authorization header: the probe is anonymous on purpose). */
  headers?: Record<string, string>;
}

/** The probe only improves the login; it must not hang it. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * The scope a login requests: the challenge's scope joined with any scope the caller
 * needs on top (a step-up), `undefined` when neither names one — `auth()` then takes the
 * metadata's `scopes_supported`, or sends no scope at all.
 *
 * @example
 * loginScope({ scope: 'mcp:basic' }, 'mcp:basic mcp:write') // 'mcp:basic mcp:write'
 * loginScope({}, undefined) // undefined
 */
export function loginScope(challenge: AuthChallenge, extra?: string): string | undefined {
  return computeScopeUnion(challenge.scope, extra);
}

/**
 * The scope to re-authorize with after `error` (anywhere in its `cause` chain) reported
 * a 403 `insufficient_scope`: what the server now requires joined with what was already
 * granted, so the new token keeps serving the earlier calls. `undefined` for any other
 * error, and for a 403 naming no scope (re-authorizing the same scope cannot help).
 *
 * @example
 * stepUpScope(toolError, 'mcp:basic') // 'mcp:basic mcp:write' when the 403 asked for mcp:write
 */
export function stepUpScope(error: unknown, grantedScope?: string): string | undefined {
  const insufficient = findInsufficientScope(error);
  if (!insufficient?.requiredScope) return undefined;
  return computeScopeUnion(grantedScope, insufficient.requiredScope);
}

function findInsufficientScope(error: unknown): InsufficientScopeError | undefined {
  const seen = new Set<unknown>();
  for (
    let current = error;
    current !== undefined && current !== null && !seen.has(current);
    current = (current as { cause?: unknown }).cause
  ) {
    seen.add(current);
    if (InsufficientScopeError.isInstance(current)) return current;
    if (typeof current !== 'object') return undefined;
  }
  return undefined;
}

/**
 * Asks `serverUrl` anonymously what authorization it wants: the `WWW-Authenticate`
 * challenge of a 401 (or 403). Sends a `ping` rather than `initialize` so a server that
 * does not require authorization opens no session for it. Any other answer, or no answer
 * within the timeout, gives an empty challenge: the login then discovers from the
 * well-known locations as before.
 */
export async function probeAuthChallenge(serverUrl: URL, options: ProbeOptions): Promise<AuthChallenge> {
  const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  const init: RequestInit =
    options.type === 'http'
      ? {
          method: 'POST',
          headers: {
            ...options.headers,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 'weft-auth-probe', method: 'ping' }),
        }
      : { method: 'GET', headers: { ...options.headers, accept: 'text/event-stream' } };
  let response: Response;
  try {
    response = await fetch(serverUrl, { ...init, signal, redirect: 'manual' });
  } catch {
    return {};
  }
  try {
    if (response.status !== 401 && response.status !== 403) return {};
    const { scope, resourceMetadataUrl } = extractWWWAuthenticateParams(response);
    return { ...(scope ? { scope } : {}), ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}) };
  } finally {
    // An SSE stream (or any body) would otherwise keep the connection open.
    await response.body?.cancel().catch(() => {});
  }
}
