// The `oauth` field: pre-registered clients and client ID metadata documents, secrets only by variable name.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.js';
import { loadMcpServerConfigs } from './load-configs.js';

let base: string;
let root: string;
let home: string;
let userFile: string;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'weft-mcp-oauth-field-'));
  root = path.join(base, 'ws');
  home = path.join(base, 'home');
  userFile = path.join(home, '.weft', 'settings.toml');
  await mkdir(root, { recursive: true });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const URL_ = 'https://mcp.example.com/mcp';

async function loadToml(oauth: unknown, env: Record<string, string> = {}, fields: Record<string, unknown> = { type: 'http', url: URL_ }) {
  const result = await loadMcpServerConfigs({
    workspaceRoot: root,
    homeDir: home,
    env,
    logger: silentLogger,
    userSettings: { file: userFile, data: { mcp: { servers: { remote: { ...fields, oauth } } } } },
  });
  return {
    config: result.servers.find((server) => server.name === 'remote'),
    messages: result.problems.map((problem) => problem.message),
    problems: result.problems,
  };
}

async function loadJson(oauth: unknown) {
  await writeFile(path.join(root, '.mcp.json'), JSON.stringify({ mcpServers: { remote: { type: 'http', url: URL_, oauth } } }));
  const result = await loadMcpServerConfigs({ workspaceRoot: root, homeDir: home, env: { SECRET: 's3cret' }, logger: silentLogger });
  return { config: result.servers.find((server) => server.name === 'remote'), messages: result.problems.map((problem) => problem.message) };
}

describe('oauth = { … } in TOML', () => {
  it('keeps a pre-registered client with its secret variable name, never the secret', async () => {
    const { config, problems } = await loadToml({ client_id: 'weft-cli', client_secret_env: 'SECRET' }, { SECRET: 's3cret' });
    expect(problems).toEqual([]);
    expect(config?.oauth).toEqual({ clientId: 'weft-cli', clientSecretEnv: 'SECRET' });
    expect(JSON.stringify(config)).not.toContain('s3cret');
  });

  it('keeps a client ID metadata document URL', async () => {
    const { config, problems } = await loadToml({ client_metadata_url: 'https://example.com/weft/client.json' });
    expect(problems).toEqual([]);
    expect(config?.oauth).toEqual({ clientMetadataUrl: 'https://example.com/weft/client.json' });
  });

  it('warns when the secret variable is unset, and still loads the server', async () => {
    const { config, problems } = await loadToml({ client_id: 'weft-cli', client_secret_env: 'SECRET' });
    expect(config?.oauth).toEqual({ clientId: 'weft-cli', clientSecretEnv: 'SECRET' });
    expect(problems).toEqual([
      {
        file: userFile,
        server: 'remote',
        field: 'oauth.client_secret_env',
        message: `~/.weft/settings.toml: server 'remote': field 'oauth.client_secret_env' names SECRET, which is not set — set SECRET before 'weft mcp login remote', or the login is refused (it needs the secret)`,
        severity: 'warning',
      },
    ]);
  });

  it('refuses a secret written in the file, naming file, server and field', async () => {
    const { config, problems } = await loadToml({ client_id: 'weft-cli', client_secret: 'oops' });
    expect(config).toBeUndefined();
    expect(problems).toEqual([
      {
        file: userFile,
        server: 'remote',
        field: 'oauth.client_secret',
        message: `~/.weft/settings.toml: server 'remote': field 'oauth.client_secret' would put a secret in the config file — put the secret in an environment variable and name it instead, e.g. client_secret_env = "MY_SERVER_CLIENT_SECRET"`,
        severity: 'error',
      },
    ]);
    expect(JSON.stringify(problems)).not.toContain('oops');
  });

  it('reports each invalid value', async () => {
    expect((await loadToml('weft-cli')).messages).toEqual([
      `~/.weft/settings.toml: server 'remote': field 'oauth' must be a table, not a string ("weft-cli") — e.g. oauth = { client_id = "weft-cli", client_secret_env = "MY_SERVER_CLIENT_SECRET" }`,
    ]);
    expect((await loadToml({ client_id: '' })).messages).toEqual([
      `~/.weft/settings.toml: server 'remote': field 'oauth.client_id' is empty — e.g. client_id = "weft-cli"`,
    ]);
    expect((await loadToml({ client_id: 'a', client_secret_env: 'MY-SECRET' })).messages).toEqual([
      `~/.weft/settings.toml: server 'remote': field 'oauth.client_secret_env' is not a variable name: "MY-SECRET" — name the environment variable that holds the client secret, e.g. "MY_SERVER_CLIENT_SECRET"`,
    ]);
    expect((await loadToml({ client_metadata_url: 'http://example.com/client.json' })).messages).toEqual([
      `~/.weft/settings.toml: server 'remote': field 'oauth.client_metadata_url' is not an https URL with a path: "http://example.com/client.json" — use the https URL where the client ID metadata document is served, e.g. "https://example.com/weft/client.json"`,
    ]);
    expect((await loadToml({ client_secret_env: 'SECRET' }, { SECRET: 'x' })).messages).toEqual([
      `~/.weft/settings.toml: server 'remote': field 'oauth.client_secret_env' needs 'oauth.client_id' — add the client ID the secret belongs to`,
    ]);
    expect((await loadToml({ client_id: 'a', client_metadata_url: 'https://example.com/c.json' })).messages).toEqual([
      `~/.weft/settings.toml: server 'remote': field 'oauth.client_metadata_url' cannot be combined with 'oauth.client_id' — keep the pre-registered client ID or the metadata document URL, not both`,
    ]);
    expect((await loadToml({ client_idd: 'a' })).messages).toEqual([
      `~/.weft/settings.toml: server 'remote': field 'oauth.client_idd' is not a known field — did you mean 'client_id'?`,
    ]);
  });

  it('applies only to http and sse servers', async () => {
    const { messages } = await loadToml({ client_id: 'a' }, {}, { command: ['server'] });
    expect(messages).toEqual([
      `~/.weft/settings.toml: server 'remote': field 'oauth' does not apply to type "stdio" — remove it, or set type = "http"`,
    ]);
  });
});

describe('"oauth": { … } in .mcp.json', () => {
  it('accepts camelCase keys and ignores other clients’ settings with a warning', async () => {
    const { config, messages } = await loadJson({ clientId: 'weft-cli', clientSecretEnv: 'SECRET', callbackPort: 8080 });
    expect(config?.oauth).toEqual({ clientId: 'weft-cli', clientSecretEnv: 'SECRET' });
    expect(messages).toEqual([
      `.mcp.json: server 'remote': field 'oauth.callbackPort' is not used by weft and was ignored — remove it if it is a misspelling`,
    ]);
  });

  it('reports a key given twice in both spellings', async () => {
    const { config, messages } = await loadJson({ clientId: 'a', client_id: 'b' });
    expect(config).toBeUndefined();
    expect(messages).toEqual([`.mcp.json: server 'remote': field 'oauth.client_id' duplicates 'oauth.clientId' — keep only one of them`]);
  });
});

describe('oauth = { grant = "client_credentials", … }', () => {
  it('keeps a machine client with its secret variable, or with its private key file resolved against the config file', async () => {
    const secret = await loadToml({ grant: 'client_credentials', client_id: 'robot', client_secret_env: 'SECRET' }, { SECRET: 's3cret' });
    expect(secret.problems).toEqual([]);
    expect(secret.config?.oauth).toEqual({ grant: 'client_credentials', clientId: 'robot', clientSecretEnv: 'SECRET' });
    const key = await loadToml({ grant: 'client_credentials', client_id: 'robot', private_key_file: 'keys/robot.pem' });
    expect(key.problems).toEqual([]);
    expect(key.config?.oauth).toEqual({
      grant: 'client_credentials',
      clientId: 'robot',
      privateKeyFile: path.join(home, '.weft', 'keys', 'robot.pem'),
    });
  });

  it('says an unset secret keeps the server from starting', async () => {
    const { messages } = await loadToml({ grant: 'client_credentials', client_id: 'robot', client_secret_env: 'SECRET' });
    expect(messages).toEqual([
      `~/.weft/settings.toml: server 'remote': field 'oauth.client_secret_env' names SECRET, which is not set — set SECRET to the client secret, or 'remote' cannot get a token and will not start`,
    ]);
  });

  it('reports each invalid combination, naming the fields', async () => {
    const prefix = `~/.weft/settings.toml: server 'remote': field`;
    expect((await loadToml({ grant: 'password', client_id: 'robot', client_secret_env: 'SECRET' }, { SECRET: 'x' })).messages).toEqual([
      `${prefix} 'oauth.grant' is not a grant weft can use: "password" — use "client_credentials" for a server without a person to log in, "cross_app_access" to sign in through your enterprise IdP, or leave it out for 'weft mcp login'`,
    ]);
    expect((await loadToml({ grant: 'client_credentials', client_secret_env: 'SECRET' }, { SECRET: 'x' })).messages).toEqual([
      `${prefix} 'oauth.client_secret_env' needs 'oauth.client_id' — add the client ID the secret belongs to`,
      `${prefix} 'oauth.grant' needs 'oauth.client_id' — add the client ID the authorization server issued for this machine client`,
    ]);
    expect((await loadToml({ grant: 'client_credentials', client_id: 'robot' })).messages).toEqual([
      `${prefix} 'oauth.grant' needs 'oauth.client_secret_env' or 'oauth.private_key_file' — name the variable holding the client secret (client_secret_basic) or the PEM private key file (private_key_jwt), one of them`,
    ]);
    expect(
      (
        await loadToml(
          { grant: 'client_credentials', client_id: 'robot', client_secret_env: 'SECRET', private_key_file: 'k.pem' },
          { SECRET: 'x' },
        )
      ).messages,
    ).toEqual([
      `${prefix} 'oauth.grant' cannot use both 'oauth.client_secret_env' and 'oauth.private_key_file' — name the variable holding the client secret (client_secret_basic) or the PEM private key file (private_key_jwt), one of them`,
    ]);
    expect((await loadToml({ client_id: 'robot', private_key_file: 'k.pem' })).messages).toEqual([
      `${prefix} 'oauth.private_key_file' needs 'oauth.grant = "client_credentials"' — a private key signs client credentials requests; add the grant or drop the key`,
    ]);
  });
});

describe('oauth = { grant = "cross_app_access", … }', () => {
  const env = { SECRET: 's3cret', ID_TOKEN: 'eyJ.id.token' };
  const client = {
    grant: 'cross_app_access',
    client_id: 'robot',
    client_secret_env: 'SECRET',
    idp_client_id: 'weft',
    id_token_env: 'ID_TOKEN',
  };

  it('keeps the client, the IdP by issuer or by token endpoint, and the ID token variable', async () => {
    const byIssuer = await loadToml({ ...client, idp_url: 'https://idp.example.com' }, env);
    expect(byIssuer.problems).toEqual([]);
    expect(byIssuer.config?.oauth).toEqual({
      grant: 'cross_app_access',
      clientId: 'robot',
      clientSecretEnv: 'SECRET',
      idpUrl: 'https://idp.example.com',
      idpClientId: 'weft',
      idTokenEnv: 'ID_TOKEN',
    });
    const byEndpoint = await loadToml(
      { ...client, idp_token_endpoint: 'https://idp.example.com/token', idp_client_secret_env: 'SECRET' },
      env,
    );
    expect(byEndpoint.problems).toEqual([]);
    expect(byEndpoint.config?.oauth).toMatchObject({ idpTokenEndpoint: 'https://idp.example.com/token', idpClientSecretEnv: 'SECRET' });
  });

  it('says an unset ID token keeps the server from starting', async () => {
    const { messages } = await loadToml({ ...client, idp_url: 'https://idp.example.com' }, { SECRET: 's3cret' });
    expect(messages).toEqual([
      `~/.weft/settings.toml: server 'remote': field 'oauth.id_token_env' names ID_TOKEN, which is not set — set ID_TOKEN to the ID token of your sign-in to the IdP, or 'remote' cannot get a token and will not start`,
    ]);
  });

  it('reports each missing or misplaced IdP field, naming the fields', async () => {
    const prefix = `~/.weft/settings.toml: server 'remote': field`;
    expect((await loadToml({ grant: 'cross_app_access', client_id: 'robot', client_secret_env: 'SECRET' }, env)).messages).toEqual([
      `${prefix} 'oauth.grant' needs 'oauth.idp_client_id' — add it, e.g. idp_client_id = "weft"`,
      `${prefix} 'oauth.grant' needs 'oauth.id_token_env' — add it, e.g. id_token_env = "IDP_ID_TOKEN"`,
      `${prefix} 'oauth.grant' needs 'oauth.idp_url' or 'oauth.idp_token_endpoint' — name the IdP by its issuer URL (its token endpoint is discovered) or give its token endpoint, one of them`,
    ]);
    expect((await loadToml({ ...client, idp_url: 'not a url', id_token_env: 'id token' }, env)).messages).toEqual([
      `${prefix} 'oauth.id_token_env' is not a variable name: "id token" — name the environment variable that holds the ID token of your sign-in to the IdP, e.g. "IDP_ID_TOKEN"`,
      `${prefix} 'oauth.idp_url' is not a URL: "not a url" — e.g. "https://idp.example.com"`,
    ]);
    expect(
      (
        await loadToml(
          { grant: 'client_credentials', client_id: 'robot', client_secret_env: 'SECRET', idp_url: 'https://idp.example.com' },
          env,
        )
      ).messages,
    ).toEqual([
      `${prefix} 'oauth.idp_url' needs 'oauth.grant = "cross_app_access"' — the IdP fields are for enterprise-managed authorization; add the grant or drop them`,
    ]);
  });
});
