/**
 * The environment a stdio MCP server is started with: a safe base taken from the host,
 * the host variables the entry names in `env_vars`, then the entry's own `env`. Nothing
 * else from the host (API keys, tokens) reaches a server unless it is named.
 */
import { registerSecret } from '../../core/redact.js';
import type { McpServerConfig } from './server-config.js';

/** Host variables every server gets when they are set. */
export const SAFE_ENV_BASE = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'TZ'] as const;

export function buildChildEnv(
  config: Pick<McpServerConfig, 'env' | 'envVars'>,
  hostEnv: Record<string, string | undefined>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...SAFE_ENV_BASE, ...config.envVars]) {
    const value = hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  // A variable passed through by name is there for the server's credentials.
  for (const name of config.envVars) registerSecret(hostEnv[name], name);
  return Object.assign(env, config.env);
}
