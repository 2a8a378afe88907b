/**
 * The `oauth` field of an http/sse server entry: how `weft mcp login` identifies itself
 * to the authorization server when it should not register dynamically — a pre-registered
 * client (`client_id`, with the secret's environment variable in `client_secret_env`) or
 * a client ID metadata document (`client_metadata_url`). `.mcp.json` files may spell the
 * keys in camelCase (`clientId`, `clientSecretEnv`, `clientMetadataUrl`). A secret itself
 * is refused: config files get committed, so they only ever name the variable.
 * `grant = "client_credentials"` selects the machine-to-machine grant: `client_id` plus
 * `client_secret_env` or `private_key_file` (a path relative to the config file).
 * `grant = "cross_app_access"` (enterprise-managed authorization) takes the same client
 * fields plus the IdP's: `idp_url` (or `idp_token_endpoint`), `idp_client_id`, optional `idp_client_secret_env`, and
 * `id_token_env`, the variable holding the person's ID token.
 */
import { dirname, resolve } from 'node:path';
import { describeValue } from '../../core/config-text/describe-value.js';
import { ENV_NAME } from './entry-fields.js';
import type { EntryFieldReader } from './field-readers.js';
import { collectKnownKeys } from './known-keys.js';
import { example, hasErrors, isPlainObject } from './problems.js';
import type { McpOAuthConfig } from './server-config.js';

type OAuthKey = keyof McpOAuthConfig;

const KEYS: Readonly<Record<string, OAuthKey>> = {
  client_id: 'clientId',
  client_secret_env: 'clientSecretEnv',
  client_metadata_url: 'clientMetadataUrl',
  grant: 'grant',
  private_key_file: 'privateKeyFile',
  idp_url: 'idpUrl',
  idp_token_endpoint: 'idpTokenEndpoint',
  idp_client_id: 'idpClientId',
  idp_client_secret_env: 'idpClientSecretEnv',
  id_token_env: 'idTokenEnv',
};

/** The fields only cross-app access reads. */
const IDP_KEYS: readonly OAuthKey[] = ['idpUrl', 'idpTokenEndpoint', 'idpClientId', 'idpClientSecretEnv', 'idTokenEnv'];

/** Fields naming environment variables, checked as variable names, with what the variable holds. */
const ENV_KEYS: ReadonlyMap<OAuthKey, string> = new Map([
  ['clientSecretEnv', 'the client secret'],
  ['idpClientSecretEnv', "weft's client secret at the IdP"],
  ['idTokenEnv', 'the ID token of your sign-in to the IdP'],
]);

/** `.mcp.json` files may also write the fields in camelCase: weft's own names for them. */
const JSON_KEYS: Readonly<Record<string, OAuthKey>> = Object.fromEntries(Object.values(KEYS).map((target) => [target, target]));

/** Keys that would hold a secret in the file. */
const SECRET_KEYS = new Set(['client_secret', 'clientSecret']);

/** Whether `value` is an https URL with a path, as client ID metadata documents must be. */
export function isClientMetadataUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.pathname !== '/' && url.pathname !== '';
  } catch {
    return false;
  }
}

/** Reads and checks `oauth`; problems go to the reader, and `undefined` comes back when there is none or it is invalid. */
export function readOAuthField(reader: EntryFieldReader): McpOAuthConfig | undefined {
  const raw = reader.fields.get('oauth');
  if (!raw) return undefined;
  const { ctx } = reader;
  const field = raw.key;
  if (!isPlainObject(raw.value)) {
    reader.wrongType('oauth', ctx.format === 'json' ? 'an object' : 'a table', raw.value);
    return undefined;
  }
  const known = ctx.format === 'json' ? { ...KEYS, ...JSON_KEYS } : KEYS;
  const before = reader.problems.length;
  const table = Object.fromEntries(
    Object.entries(raw.value).filter(([key, value]) => {
      if (value === undefined || !SECRET_KEYS.has(key)) return true;
      const name = ctx.format === 'json' ? 'clientSecretEnv' : 'client_secret_env';
      reader.error(
        `${field}.${key}`,
        'would put a secret in the config file',
        `put the secret in an environment variable and name it instead, e.g. ${example(ctx.format, name, 'MY_SERVER_CLIENT_SECRET')}`,
      );
      return false;
    }),
  );
  const fields = collectKnownKeys(
    ctx,
    reader.server,
    table,
    {
      fieldOf: (key) => (Object.hasOwn(known, key) ? known[key] : undefined),
      suggestions: Object.keys(known),
      tomlKeys: Object.keys(KEYS),
      prefix: `${field}.`,
    },
    reader.problems,
  );
  const config: McpOAuthConfig = {};
  const written: Partial<Record<OAuthKey, string>> = {};
  for (const [target, { key, value }] of fields) {
    const path = `${field}.${key}`;
    written[target] = key;
    if (typeof value !== 'string' || value.trim() === '') {
      const shown = typeof value === 'string' ? 'is empty' : `must be a string, not ${describeValue(value, ctx.format)}`;
      reader.error(path, shown, `e.g. ${example(ctx.format, key, SAMPLES[target])}`);
      continue;
    }
    if (target === 'grant') {
      if (value === 'client_credentials' || value === 'cross_app_access') config.grant = value;
      else {
        const fix = `use "client_credentials" for a server without a person to log in, "cross_app_access" to sign in through your enterprise IdP, or leave it out for 'weft mcp login'`;
        reader.error(path, `is not a grant weft can use: ${JSON.stringify(value)}`, fix);
      }
      continue;
    }
    config[target] = target === 'privateKeyFile' ? resolve(dirname(ctx.file), value) : value;
  }
  const keyOf = (target: OAuthKey) => `${field}.${written[target] ?? Object.keys(KEYS).find((key) => KEYS[key] === target)}`;
  for (const [target, holds] of ENV_KEYS) {
    const name = config[target];
    if (name !== undefined && !ENV_NAME.test(name))
      reader.error(
        keyOf(target),
        `is not a variable name: ${JSON.stringify(name)}`,
        `name the environment variable that holds ${holds}, e.g. "${SAMPLES[target]}"`,
      );
  }
  for (const target of ['idpUrl', 'idpTokenEndpoint'] as const) {
    const url = config[target];
    if (url !== undefined && !URL.canParse(url))
      reader.error(keyOf(target), `is not a URL: ${JSON.stringify(url)}`, `e.g. "${SAMPLES[target]}"`);
  }
  if (config.clientMetadataUrl !== undefined && !isClientMetadataUrl(config.clientMetadataUrl)) {
    reader.error(
      keyOf('clientMetadataUrl'),
      `is not an https URL with a path: ${JSON.stringify(config.clientMetadataUrl)}`,
      'use the https URL where the client ID metadata document is served, e.g. "https://example.com/weft/client.json"',
    );
  }
  if (written.clientSecretEnv !== undefined && written.clientId === undefined) {
    reader.error(keyOf('clientSecretEnv'), `needs '${keyOf('clientId')}'`, 'add the client ID the secret belongs to');
  }
  if (written.clientId !== undefined && written.clientMetadataUrl !== undefined) {
    reader.error(
      keyOf('clientMetadataUrl'),
      `cannot be combined with '${keyOf('clientId')}'`,
      'keep the pre-registered client ID or the metadata document URL, not both',
    );
  }
  if (written.grant !== undefined) checkClientCredentials(reader, written, keyOf);
  else if (written.privateKeyFile !== undefined) {
    reader.error(
      keyOf('privateKeyFile'),
      `needs '${keyOf('grant')} = "client_credentials"'`,
      'a private key signs client credentials requests; add the grant or drop the key',
    );
  }
  checkIdentityProvider(reader, config.grant, written, keyOf);
  return hasErrors(reader.problems.slice(before)) ? undefined : config;
}

/** The client credentials grant authenticates with exactly one of a secret or a private key, and has no metadata document. */
function checkClientCredentials(
  reader: EntryFieldReader,
  written: Partial<Record<OAuthKey, string>>,
  keyOf: (target: OAuthKey) => string,
): void {
  if (written.clientId === undefined)
    reader.error(
      keyOf('grant'),
      `needs '${keyOf('clientId')}'`,
      'add the client ID the authorization server issued for this machine client',
    );
  const secret = written.clientSecretEnv !== undefined;
  const key = written.privateKeyFile !== undefined;
  if (secret === key) {
    const text = secret
      ? `cannot use both '${keyOf('clientSecretEnv')}' and '${keyOf('privateKeyFile')}'`
      : `needs '${keyOf('clientSecretEnv')}' or '${keyOf('privateKeyFile')}'`;
    reader.error(
      keyOf('grant'),
      text,
      'name the variable holding the client secret (client_secret_basic) or the PEM private key file (private_key_jwt), one of them',
    );
  }
  if (written.clientMetadataUrl !== undefined) {
    reader.error(
      keyOf('clientMetadataUrl'),
      `cannot be combined with '${keyOf('grant')}'`,
      'client credentials use a client ID issued beforehand; drop the metadata document URL',
    );
  }
}

/** Cross-app access needs the IdP, weft's client there and the ID token; no other grant reads them. */
function checkIdentityProvider(
  reader: EntryFieldReader,
  grant: McpOAuthConfig['grant'],
  written: Partial<Record<OAuthKey, string>>,
  keyOf: (target: OAuthKey) => string,
): void {
  if (grant === 'cross_app_access') {
    for (const target of ['idpClientId', 'idTokenEnv'] as const) {
      if (written[target] === undefined)
        reader.error(
          keyOf('grant'),
          `needs '${keyOf(target)}'`,
          `add it, e.g. ${example(reader.ctx.format, keyOf(target).split('.').pop() ?? target, SAMPLES[target])}`,
        );
    }
    if ((written.idpUrl === undefined) === (written.idpTokenEndpoint === undefined)) {
      const text =
        written.idpUrl === undefined
          ? `needs '${keyOf('idpUrl')}' or '${keyOf('idpTokenEndpoint')}'`
          : `cannot use both '${keyOf('idpUrl')}' and '${keyOf('idpTokenEndpoint')}'`;
      reader.error(
        keyOf('grant'),
        text,
        'name the IdP by its issuer URL (its token endpoint is discovered) or give its token endpoint, one of them',
      );
    }
    return;
  }
  for (const target of IDP_KEYS) {
    if (written[target] !== undefined)
      reader.error(
        keyOf(target),
        `needs '${keyOf('grant')} = "cross_app_access"'`,
        'the IdP fields are for enterprise-managed authorization; add the grant or drop them',
      );
  }
}

const SAMPLES: Record<OAuthKey, string> = {
  clientId: 'weft-cli',
  clientSecretEnv: 'MY_SERVER_CLIENT_SECRET',
  clientMetadataUrl: 'https://example.com/weft/client.json',
  grant: 'client_credentials',
  privateKeyFile: 'keys/weft-client.pem',
  idpUrl: 'https://idp.example.com',
  idpTokenEndpoint: 'https://idp.example.com/oauth2/token',
  idpClientId: 'weft',
  idpClientSecretEnv: 'IDP_CLIENT_SECRET',
  idTokenEnv: 'IDP_ID_TOKEN',
};
