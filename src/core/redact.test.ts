import { describe, expect, it } from 'vitest';
import { isSecretName, redactJson, redactSecrets, registerEnvironmentSecrets, registerSecret } from './redact.js';

describe('redactSecrets', () => {
  it('replaces a registered value with its name wherever it appears', () => {
    registerSecret('tok-0123456789abcdef', 'WEFT_MCP_TOKEN');
    expect(redactSecrets('a tok-0123456789abcdef b tok-0123456789abcdef')).toBe('a [redacted:WEFT_MCP_TOKEN] b [redacted:WEFT_MCP_TOKEN]');
  });

  it('leaves values shorter than 8 characters alone', () => {
    registerSecret('short77', 'SHORT_TOKEN');
    registerEnvironmentSecrets({ TINY_API_KEY: 'abc' });
    expect(redactSecrets('short77 abc')).toBe('short77 abc');
  });

  it('takes the values of secret-looking variables and URL passwords from an environment', () => {
    registerSecret('unit-named-by-config', 'UNIT_NAMED');
    registerEnvironmentSecrets({
      UNIT_API_KEY: 'unit-api-key-value',
      UNIT_GH_TOKEN: 'unit-gh-token-value',
      UNIT_DB_PASSWORD_FILE_X: 'unit-password-value',
      UNIT_CLIENT_SECRET: 'unit-client-secret',
      UNIT_PLAIN: 'unit-plain-but-long',
      UNIT_NAMED: 'unit-named-by-config',
      UNIT_DATABASE_URL: 'postgres://app:p%40ss-word-1@db.internal:5432/app',
      SSH_AUTH_SOCK: '/tmp/ssh-agent.sock',
    });
    const text =
      'unit-api-key-value unit-gh-token-value unit-password-value unit-client-secret unit-plain-but-long unit-named-by-config /tmp/ssh-agent.sock';
    expect(redactSecrets(text)).toBe(
      '[redacted:UNIT_API_KEY] [redacted:UNIT_GH_TOKEN] [redacted:UNIT_DB_PASSWORD_FILE_X] [redacted:UNIT_CLIENT_SECRET] unit-plain-but-long [redacted:UNIT_NAMED] /tmp/ssh-agent.sock',
    );
    expect(redactSecrets('connect postgres://app:p%40ss-word-1@db.internal:5432/app; password p@ss-word-1')).toBe(
      'connect postgres://app:[redacted:UNIT_DATABASE_URL]@db.internal:5432/app; password [redacted:UNIT_DATABASE_URL]',
    );
  });

  it('finds a value the way a JSON text holds it (quotes and backslashes escaped)', () => {
    registerSecret('quote"and\\slash-secret', 'UNIT_ODD_TOKEN');
    expect(redactSecrets(JSON.stringify({ output: 'x quote"and\\slash-secret y' }))).toBe('{"output":"x [redacted:UNIT_ODD_TOKEN] y"}');
  });

  it('replaces well-known key shapes even when nobody registered them', () => {
    expect(redactSecrets('Authorization: Bearer abcdefgh12345678 and sk-ant-0123456789abcdefXYZ, ghp_0123456789abcdefghijABCD')).toBe(
      'Authorization: Bearer [redacted:bearer-token] and [redacted:api-key], [redacted:github-token]',
    );
  });
});

describe('isSecretName', () => {
  it('matches *_TOKEN, *_KEY, *_API_KEY, *_SECRET and *PASSWORD*, not ordinary names', () => {
    expect(
      ['GITHUB_TOKEN', 'OPENAI_API_KEY', 'AWS_SECRET_ACCESS_KEY', 'CLIENT_SECRET', 'PGPASSWORD', 'DB_PASSWORD_FILE', 'my_token'].filter(
        isSecretName,
      ),
    ).toHaveLength(7);
    expect(
      ['PATH', 'SSH_AUTH_SOCK', 'KEYBOARD', 'TOKENIZER_MODEL', 'AUTHOR', 'GOOGLE_APPLICATION_CREDENTIALS'].filter(isSecretName),
    ).toEqual([]);
  });
});

describe('redactJson', () => {
  it('redacts strings and keys at any depth and returns the same value when nothing is secret', () => {
    registerSecret('json-secret-value', 'UNIT_JSON_KEY');
    const clean = { a: [1, 'x', { b: null }] };
    expect(redactJson(clean)).toBe(clean);
    expect(redactJson({ args: { q: ['json-secret-value'] }, 'json-secret-value': true, n: 3 })).toEqual({
      args: { q: ['[redacted:UNIT_JSON_KEY]'] },
      '[redacted:UNIT_JSON_KEY]': true,
      n: 3,
    });
  });
});
