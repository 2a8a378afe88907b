import { describe, expect, it } from 'vitest';
import { describeSandboxRules, mergeSandboxSpecs, readSandboxSpec, resolveSandboxRules } from './sandbox-rules.js';

describe('[run.sandbox]', () => {
  it('reads every field, lower-casing hosts', () => {
    expect(
      readSandboxSpec(
        {
          mode: 'os',
          allow_write: ['build'],
          deny_read: ['~/secrets'],
          network: { allow: ['Registry.NPMjs.org', '*.corp.example', 'localhost:8080'] },
          max_processes: 500,
        },
        '[run.sandbox]',
      ),
    ).toEqual({
      spec: {
        mode: 'os',
        allowWrite: ['build'],
        denyRead: ['~/secrets'],
        network: { allow: ['registry.npmjs.org', '*.corp.example', 'localhost:8080'] },
        maxProcesses: 500,
      },
      problems: [],
    });
    expect(readSandboxSpec({ network: 'none' }, 'x').spec).toEqual({ network: 'none' });
  });

  it('names the field, the value and the fix for each bad value', () => {
    const { problems } = readSandboxSpec(
      { mode: 'docker', allow_write: 'build', network: 'all', max_processes: 10, deny: [] },
      '[run.sandbox] in settings.toml',
    );
    expect(problems).toEqual([
      "[run.sandbox] in settings.toml: unknown key 'deny' (known keys: mode, allow_write, deny_read, network, max_processes)",
      `[run.sandbox] in settings.toml: 'mode' must be "none" or "os", not a string ("docker")`,
      `[run.sandbox] in settings.toml: 'allow_write' must be an array of paths such as ["build", "~/.cache/npm"], not a string ("build")`,
      `[run.sandbox] in settings.toml: 'network' must be "none" or { allow = [hosts] }, not a string ("all") — write network = "none" or network = { allow = ["registry.npmjs.org", "localhost:8080"] }`,
      "[run.sandbox] in settings.toml: 'max_processes' must be an integer ≥ 300 (processes and threads at once), not a number (10)",
    ]);
    expect(readSandboxSpec({ network: { allow: ['https://example.com/x'] } }, 'w').problems).toEqual([
      `w: 'network.allow' entry "https://example.com/x" is not a host name: write "example.com", "*.example.com" or "localhost:8080" (no scheme or path)`,
    ]);
  });

  it('layers specs: later modes and networks win, path lists add up', () => {
    expect(
      mergeSandboxSpecs({ mode: 'os', allowWrite: ['a'], network: { allow: ['x'] } }, undefined, {
        mode: 'none',
        allowWrite: ['b'],
        denyRead: ['c'],
      }),
    ).toEqual({ mode: 'none', allowWrite: ['a', 'b'], denyRead: ['c'], network: { allow: ['x'] } });
  });

  it('resolves paths against the workspace and home, always hiding credentials and the storage dir', () => {
    expect(resolveSandboxRules({ mode: 'none' }, { workspace: '/w', storageDir: '/s' })).toBeUndefined();
    expect(resolveSandboxRules({}, { workspace: '/w', storageDir: '/s' })).toBeUndefined();
    const rules = resolveSandboxRules(
      { mode: 'os', allowWrite: ['out', '~/.cache'], denyRead: ['/etc/shadow'] },
      { workspace: '/w', storageDir: '/s', home: '/h' },
    );
    expect(rules).toEqual({
      mode: 'os',
      allowWrite: ['/w', '/w/out', '/h/.cache'],
      denyRead: [
        '/h/.ssh',
        '/h/.aws',
        '/h/.config/gcloud',
        '/h/.docker',
        '/h/.npmrc',
        '/h/.netrc',
        '/h/.gnupg',
        '/h/.kube',
        '/h/.git-credentials',
        '/s',
        '/etc/shadow',
      ],
      network: 'none',
      maxProcesses: 1024,
    });
    expect(describeSandboxRules(rules)).toBe(
      'os — writes: /w, /w/out, /h/.cache and a private /tmp; unreadable: /h/.ssh, /h/.aws, /h/.config/gcloud, /h/.docker, /h/.npmrc, /h/.netrc, /h/.gnupg, /h/.kube, /h/.git-credentials, /s, /etc/shadow; network: none; at most 1024 processes',
    );
  });
});
