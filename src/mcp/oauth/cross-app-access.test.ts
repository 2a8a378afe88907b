// Cross-app access: the ID token exchanged at a real IdP endpoint on 127.0.0.1, the grant it returns sent as jwt-bearer.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { redactSecrets } from '../../core/redact.js';
import { crossAppAccessGrant } from './cross-app-access.js';

let server: Server | undefined;
const exchanges: URLSearchParams[] = [];

afterEach(async () => {
  exchanges.length = 0;
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

/** An IdP token endpoint that answers every exchange with `grant`, or refuses with `invalid_grant`. */
async function idp(grant: string | undefined): Promise<string> {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      exchanges.push(new URLSearchParams(body));
      const answer = grant
        ? { access_token: grant, issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag', token_type: 'N_A' }
        : { error: 'invalid_grant', error_description: 'ID token expired' };
      response.writeHead(grant ? 200 : 400, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((listening) => server?.listen(0, '127.0.0.1', listening));
  return `http://127.0.0.1:${(server?.address() as AddressInfo).port}/token`;
}

const target = { authorizationServerUrl: 'http://127.0.0.1:1/as', resourceUrl: 'http://127.0.0.1:2/mcp' };
const env = { WEFT_TEST_ID_TOKEN: 'id-token-of-the-sign-in', WEFT_TEST_IDP_SECRET: 'idp-client-secret-42' };

describe('crossAppAccessGrant', () => {
  it('exchanges the ID token for a grant naming the authorization server and resource, and sends it as a jwt-bearer assertion', async () => {
    const tokenEndpoint = await idp('jag-issued-by-the-idp-0123456789');
    const oauth = {
      grant: 'cross_app_access' as const,
      clientId: 'robot',
      idpTokenEndpoint: tokenEndpoint,
      idpClientId: 'weft',
      idpClientSecretEnv: 'WEFT_TEST_IDP_SECRET',
      idTokenEnv: 'WEFT_TEST_ID_TOKEN',
    };
    const grant = crossAppAccessGrant('crm', oauth, env);
    const params = await grant.params('crm:read', target);
    expect(Object.fromEntries(params)).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: 'jag-issued-by-the-idp-0123456789',
      scope: 'crm:read',
    });
    expect(Object.fromEntries(exchanges[0] ?? [])).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      audience: target.authorizationServerUrl,
      resource: target.resourceUrl,
      subject_token: 'id-token-of-the-sign-in',
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      client_id: 'weft',
      client_secret: 'idp-client-secret-42',
      scope: 'crm:read',
    });
    // The grant, the ID token and the IdP secret are secrets from now on.
    expect(redactSecrets('jag-issued-by-the-idp-0123456789 id-token-of-the-sign-in idp-client-secret-42')).not.toMatch(
      /jag-issued|id-token-of|idp-client-secret/,
    );
  });

  it('fails naming the IdP and the fields to check when the IdP refuses the exchange', async () => {
    const tokenEndpoint = await idp(undefined);
    const grant = crossAppAccessGrant(
      'crm',
      { grant: 'cross_app_access', idpTokenEndpoint: tokenEndpoint, idpClientId: 'weft', idTokenEnv: 'WEFT_TEST_ID_TOKEN' },
      env,
    );
    await expect(grant.params(undefined, target)).rejects.toThrow(
      `[crm] the IdP ${tokenEndpoint} refused the ID token exchange: Token exchange failed: invalid_grant - ID token expired — check oauth.idp_client_id and that WEFT_TEST_ID_TOKEN holds a current ID token`,
    );
  });

  it('fails before any request when the ID token variable is unset, or when the server has no resource metadata', async () => {
    const oauth = {
      grant: 'cross_app_access' as const,
      idpUrl: 'https://idp.example.com',
      idpClientId: 'weft',
      idTokenEnv: 'UNSET_ID_TOKEN',
    };
    expect(() => crossAppAccessGrant('crm', oauth, env)).toThrow(
      '[crm] environment variable UNSET_ID_TOKEN (oauth.id_token_env) is not set — set it to the ID token your sign-in to https://idp.example.com issued',
    );
    const grant = crossAppAccessGrant('crm', { ...oauth, idTokenEnv: 'WEFT_TEST_ID_TOKEN' }, env);
    await expect(grant.params(undefined, { authorizationServerUrl: target.authorizationServerUrl })).rejects.toThrow(
      'publishes no protected resource metadata',
    );
    expect(exchanges).toEqual([]);
  });
});
