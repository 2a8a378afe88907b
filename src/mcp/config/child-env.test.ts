// The child environment of a stdio server: safe base + env_vars + env, and nothing else from the host.
import { describe, expect, it } from 'vitest';
import { buildChildEnv } from './child-env.js';

const host = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/me',
  USER: 'me',
  LOGNAME: 'me',
  SHELL: '/bin/bash',
  LANG: 'en_US.UTF-8',
  LC_ALL: undefined,
  TERM: 'xterm',
  TMPDIR: '/tmp',
  TZ: 'UTC',
  OPENAI_API_KEY: 'sk-secret',
  ANTHROPIC_API_KEY: 'sk-ant-secret',
  GITHUB_TOKEN: 'ghp_token',
  NODE_OPTIONS: '--inspect',
};

describe('buildChildEnv', () => {
  it('passes only the safe base that is set, and never secrets', () => {
    expect(buildChildEnv({ env: {}, envVars: [] }, host)).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/me',
      USER: 'me',
      LOGNAME: 'me',
      SHELL: '/bin/bash',
      LANG: 'en_US.UTF-8',
      TERM: 'xterm',
      TMPDIR: '/tmp',
      TZ: 'UTC',
    });
  });

  it('adds the host variables named in env_vars (when set) and then env, which wins', () => {
    const env = buildChildEnv({ envVars: ['GITHUB_TOKEN', 'NOT_SET'], env: { PATH: '/opt/bin', EXTRA: '1' } }, host);
    expect(env).toEqual({
      PATH: '/opt/bin',
      HOME: '/home/me',
      USER: 'me',
      LOGNAME: 'me',
      SHELL: '/bin/bash',
      LANG: 'en_US.UTF-8',
      TERM: 'xterm',
      TMPDIR: '/tmp',
      TZ: 'UTC',
      GITHUB_TOKEN: 'ghp_token',
      EXTRA: '1',
    });
    expect(env).not.toHaveProperty('OPENAI_API_KEY');
    expect(env).not.toHaveProperty('NOT_SET');
  });
});
