import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENVIRONMENT_KEY_FILE, environmentFingerprint } from './environment-fingerprint.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-envfp-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('environmentFingerprint', () => {
  it("changes with any name or value that matters, not with the shell's bookkeeping or weft's own secrets", () => {
    const base = { PATH: '/usr/bin', ANTHROPIC_API_KEY: 'sk-ant-one-0123456789', ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' };
    const print = environmentFingerprint(dir, base);
    expect(print).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(
      environmentFingerprint(dir, {
        ...base,
        PWD: '/elsewhere',
        OLDPWD: '/x',
        SHLVL: '3',
        _: '/usr/bin/weft',
        WEFT_HOME: dir,
        WEFT_MCP_TOKEN: 'tok-0123456789abcdef',
      }),
    ).toBe(print);
    expect(environmentFingerprint(dir, { ...base, ANTHROPIC_API_KEY: 'sk-ant-two-0123456789' })).not.toBe(print);
    expect(environmentFingerprint(dir, { ...base, ANTHROPIC_BASE_URL: 'http://127.0.0.1:2' })).not.toBe(print);
    expect(environmentFingerprint(dir, { ...base, EXTRA: '' })).not.toBe(print);
    // Names and values cannot slide into each other.
    expect(environmentFingerprint(dir, { AB: 'C' })).not.toBe(environmentFingerprint(dir, { A: 'BC' }));
  });

  it('keys the hash with a random 32-byte key kept 0600 in the storage dir', () => {
    const other = mkdtempSync(join(tmpdir(), 'weft-envfp-'));
    try {
      const env = { PATH: '/usr/bin' };
      expect(environmentFingerprint(dir, env)).not.toBe(environmentFingerprint(other, env));
      const key = join(dir, ENVIRONMENT_KEY_FILE);
      expect(readFileSync(key)).toHaveLength(32);
      expect(statSync(key).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
