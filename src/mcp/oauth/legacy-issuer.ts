/**
 * Servers written to the 2025-03-26 authorization spec publish no protected resource
 * metadata: the client takes the MCP server's own origin as the authorization server, and
 * some of them publish metadata whose `issuer` carries a path (`<origin>/oauth`), which the
 * SDK's RFC 8414 §3.3 check refuses. The check exists against mix-ups between authorization
 * servers; here there is only one party, the MCP server's origin, vouching for itself. So a
 * metadata mismatch is forgiven only when discovery shows exactly that shape — no resource
 * metadata, the authorization server and the metadata's issuer on the MCP server's origin —
 * and the flow is run again without the check. Anything else keeps failing as before.
 */
import { discoverOAuthServerInfo, IssuerMismatchError } from '@modelcontextprotocol/client';
import type { FetchLike } from '@modelcontextprotocol/client';

/** What the retried flow is told: the SDK's opt-out, named as `auth()` takes it. */
export interface IssuerCheck {
  skipIssuerMetadataValidation?: true;
}

/**
 * Runs `flow` with the SDK's issuer check; on a metadata mismatch from a 2025-03-26-style
 * server (see above), runs it once more with the check off.
 */
export async function withLegacyIssuerTolerance<T>(
  serverUrl: URL,
  flow: (check: IssuerCheck) => Promise<T>,
  fetchFn?: FetchLike,
): Promise<T> {
  try {
    return await flow({});
  } catch (error) {
    if (!IssuerMismatchError.isInstance(error) || error.kind !== 'metadata') throw error;
    if (!(await isLegacySelfIssued(serverUrl, fetchFn))) throw error;
    return flow({ skipIssuerMetadataValidation: true });
  }
}

async function isLegacySelfIssued(serverUrl: URL, fetchFn?: FetchLike): Promise<boolean> {
  const info = await discoverOAuthServerInfo(serverUrl, { skipIssuerMetadataValidation: true, ...(fetchFn ? { fetchFn } : {}) });
  const issuer = info.authorizationServerMetadata?.issuer;
  if (info.resourceMetadata !== undefined || issuer === undefined) return false;
  return sameOrigin(info.authorizationServerUrl, serverUrl) && sameOrigin(issuer, serverUrl);
}

function sameOrigin(url: string, serverUrl: URL): boolean {
  return URL.canParse(url) && new URL(url).origin === serverUrl.origin;
}
