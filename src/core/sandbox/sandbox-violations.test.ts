import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostAllowed } from './network-proxy.js';
import { describeViolation } from './sandbox-provider.js';
import type { SandboxRules } from './sandbox-rules.js';
import { violationsInStderr } from './sandbox-violations.js';

const RULES: SandboxRules = { mode: 'os', allowWrite: ['/w'], denyRead: ['/h/.ssh', '/s'], network: 'none', maxProcesses: 1024 };

describe('sandbox violations in stderr', () => {
  it('reads refused writes and hidden reads as the common tools print them, once each', () => {
    const stderr = [
      "touch: cannot touch '/etc/x': Read-only file system",
      '/bin/sh: 1: cannot create /usr/y: Read-only file system',
      'cat: /h/.ssh/id_rsa: Permission denied',
      'cat: /h/.ssh/id_rsa: Permission denied',
      "ls: cannot open directory '/s': Permission denied",
      'cat: /etc/other: Permission denied',
      'make: *** [all] Error 1',
    ].join('\n');
    expect(violationsInStderr(stderr, '/w', RULES)).toEqual([
      { kind: 'write', path: '/etc/x', setting: 'allow_write' },
      { kind: 'write', path: '/usr/y', setting: 'allow_write' },
      { kind: 'read', path: '/h/.ssh/id_rsa', setting: 'deny_read' },
      { kind: 'read', path: '/s', setting: 'deny_read' },
    ]);
  });

  it('reports a write through a symlink in the workspace as where the link points', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-violations-'));
    try {
      await symlink('/etc/evil', join(dir, 'link'));
      expect(violationsInStderr('/bin/sh: 1: cannot create link: Read-only file system', dir, { ...RULES, allowWrite: [dir] })).toEqual([
        { kind: 'write', path: '/etc/evil', setting: 'allow_write' },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('says which setting allows what was refused', () => {
    expect(describeViolation({ kind: 'network', host: 'evil.example', port: 443, setting: 'network.allow' })).toBe(
      'the sandbox refused a connection to evil.example:443: allow it with [run.sandbox] network = { allow = ["evil.example"] }',
    );
    expect(describeViolation({ kind: 'write', path: '/etc/x', setting: 'allow_write' })).toBe(
      'the sandbox refused a write to /etc/x: it is outside [run.sandbox] allow_write (add the folder there to allow it)',
    );
  });
});

describe('the proxy allow list', () => {
  it('matches names exactly or by *. suffix, and ports when an entry names one', () => {
    const allow = ['registry.npmjs.org', '*.corp.example', 'localhost:8080', '[::1]:9000'];
    expect(hostAllowed(allow, 'registry.npmjs.org', 443)).toBe(true);
    expect(hostAllowed(allow, 'REGISTRY.npmjs.org', 80)).toBe(true);
    expect(hostAllowed(allow, 'evil-registry.npmjs.org', 443)).toBe(false);
    expect(hostAllowed(allow, 'wiki.corp.example', 443)).toBe(true);
    expect(hostAllowed(allow, 'corp.example.evil.com', 443)).toBe(false);
    expect(hostAllowed(allow, 'localhost', 8080)).toBe(true);
    expect(hostAllowed(allow, 'localhost', 8081)).toBe(false);
    expect(hostAllowed(allow, '::1', 9000)).toBe(true);
    expect(hostAllowed(allow, '127.0.0.1', 8080)).toBe(false);
  });
});
