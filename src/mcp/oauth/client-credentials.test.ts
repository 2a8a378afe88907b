// The client credentials grant's credential: read from the variable or key file config names, with errors naming the field.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { redactSecrets } from '../../core/redact.js';
import type { McpServerConfig } from '../config/server-config.js';
import { MachineClientProvider, readClientCredential } from './client-credentials.js';
import { loginMcpServer } from './login.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-client-credentials-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function keyFile(name: string, pem: string): string {
  const file = join(dir, name);
  writeFileSync(file, pem);
  return file;
}

describe('readClientCredential', () => {
  it('reads the secret from the named variable and keeps it out of logs', () => {
    const credential = readClientCredential(
      'api',
      { grant: 'client_credentials', clientId: 'robot', clientSecretEnv: 'ROBOT_SECRET' },
      { ROBOT_SECRET: 'sekrit-value-42' },
    );
    expect(credential).toEqual({ kind: 'secret', secret: 'sekrit-value-42' });
    expect(redactSecrets('token sekrit-value-42')).not.toContain('sekrit-value-42');
  });

  it('picks the signing algorithm from the key type', () => {
    const pem = (type: 'rsa' | 'ec' | 'ed25519', curve?: string) =>
      generateKeyPairSync(type as 'ec', { namedCurve: curve ?? 'prime256v1', modulusLength: 2048 } as { namedCurve: string })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString();
    const algorithm = (file: string) => {
      const credential = readClientCredential('api', { grant: 'client_credentials', clientId: 'robot', privateKeyFile: file }, {});
      return credential.kind === 'private_key' ? credential.algorithm : undefined;
    };
    expect(algorithm(keyFile('ec.pem', pem('ec')))).toBe('ES256');
    expect(algorithm(keyFile('ec384.pem', pem('ec', 'secp384r1')))).toBe('ES384');
    expect(algorithm(keyFile('rsa.pem', pem('rsa')))).toBe('RS256');
    expect(algorithm(keyFile('ed.pem', pem('ed25519')))).toBe('EdDSA');
  });

  it('names the field to fix when the credential is missing or unusable', () => {
    const base = { grant: 'client_credentials', clientId: 'robot' } as const;
    expect(() => readClientCredential('api', { ...base, clientSecretEnv: 'ROBOT_SECRET' }, {})).toThrow(
      "[api] environment variable ROBOT_SECRET (oauth.client_secret_env) is not set — set it to the client secret of 'robot'",
    );
    const missing = join(dir, 'none.pem');
    expect(() => readClientCredential('api', { ...base, privateKeyFile: missing }, {})).toThrow(
      `cannot read oauth.private_key_file ${missing} (ENOENT)`,
    );
    const junk = keyFile('junk.pem', 'not a key');
    expect(() => readClientCredential('api', { ...base, privateKeyFile: junk }, {})).toThrow(
      `oauth.private_key_file ${junk} is not a PEM private key`,
    );
  });
});

describe('MachineClientProvider', () => {
  it('asks for a client_credentials token, authenticating with the secret or a signed assertion', () => {
    const basic = new MachineClientProvider('robot', { kind: 'secret', secret: 's' });
    expect(basic.clientMetadata.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(basic.clientInformation()).toEqual({ client_id: 'robot', client_secret: 's' });
    expect(basic.addClientAuthentication).toBeUndefined();
    expect(basic.prepareTokenRequest('mcp:read').toString()).toBe('grant_type=client_credentials&scope=mcp%3Aread');
    const pem = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const jwt = new MachineClientProvider('robot', { kind: 'private_key', pem, algorithm: 'ES256' });
    expect(jwt.clientMetadata.token_endpoint_auth_method).toBe('private_key_jwt');
    expect(jwt.clientInformation()).toEqual({ client_id: 'robot' });
    expect(jwt.addClientAuthentication).toBeTypeOf('function');
  });
});

describe('weft mcp login', () => {
  it('refuses a client credentials server: there is nobody to log in', async () => {
    const config: McpServerConfig = {
      name: 'reports',
      type: 'http',
      url: 'http://127.0.0.1:9/mcp',
      oauth: { grant: 'client_credentials', clientId: 'robot', clientSecretEnv: 'ROBOT_SECRET' },
      env: {},
      envVars: [],
      headers: {},
      protocol: 'streamable_http',
      startupTimeoutMs: 1_000,
      toolTimeoutMs: 1_000,
      maxToolTimeoutMs: 1_000,
      enabled: true,
      required: false,
      disabledTools: [],
      sampling: false,
      source: { kind: 'runtime', file: 'test' },
    };
    await expect(loginMcpServer({ config, storageDir: dir, openUrl: async () => {} })).rejects.toThrow(
      "'reports' uses the client credentials grant: weft gets its tokens when it connects, no login needed — try 'weft mcp test reports'",
    );
  });
});
