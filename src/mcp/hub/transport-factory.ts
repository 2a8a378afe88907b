/**
 * Builds the transport for one connection attempt from a server's config: weft's own
 * stdio transport for `stdio`, the SDK's Streamable HTTP and SSE transports for `http`
 * and `sse`. Problems a person must fix (no command, missing token, bad cwd) are thrown
 * as `StartupProblem`s.
 */
import { existsSync } from 'node:fs';
import { SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import type { Logger } from '../../core/logger.js';
import { registerSecret } from '../../core/redact.js';
import { buildChildEnv } from '../config/child-env.js';
import type { McpServerConfig } from '../config/server-config.js';
import { StartupProblem } from './startup-failure.js';
import { StdioProcessTransport, type StdioLaunch } from './stdio-transport.js';
import type { HostEnv } from './types.js';
import type { GroupWatchdog } from './watchdog.js';

export interface TransportDeps {
  workspaceRoot: string;
  env: HostEnv;
  logger: Logger;
  watchdog?: GroupWatchdog;
  eofGraceMs?: number;
  killGraceMs?: number;
}

export type BuiltTransport =
  | { kind: 'stdio'; transport: StdioProcessTransport; command: string }
  | { kind: 'http' | 'sse'; transport: Transport; url: string };

const SECRET_HEADER = /(auth|token|key|secret|cookie|session)/i;

export function stdioLaunch(config: McpServerConfig, deps: Pick<TransportDeps, 'workspaceRoot' | 'env'>): StdioLaunch {
  const cwd = config.cwd ?? deps.workspaceRoot;
  const env = buildChildEnv(config, deps.env);
  if (config.command && config.command.length > 0) {
    const [command, ...args] = config.command as [string, ...string[]];
    return { command, args, cwd, env };
  }
  if (config.script) return { command: '/bin/sh', args: ['-c', config.script], cwd, env };
  throw new StartupProblem('no command or script — set command = ["executable", "arg", …] or script = "…"');
}

function httpHeaders(config: McpServerConfig, env: HostEnv): Record<string, string> {
  const headers: Record<string, string> = { ...config.headers };
  for (const [name, value] of Object.entries(headers)) if (SECRET_HEADER.test(name)) registerSecret(value);
  if (config.bearerTokenEnvVar) {
    const token = env[config.bearerTokenEnvVar];
    if (!token) throw new StartupProblem(`bearer_token_env_var names ${config.bearerTokenEnvVar}, which is not set — export it before starting weft`);
    registerSecret(token);
    headers.Authorization = `Bearer ${token}`;
  }
  return headers;
}

function endpoint(config: McpServerConfig): URL {
  if (!config.url) throw new StartupProblem(`no url — set url = "https://…" for a ${config.type} server`);
  try {
    return new URL(config.url);
  } catch {
    throw new StartupProblem(`invalid url '${config.url}' — use an absolute http(s) URL`);
  }
}

export function createTransport(config: McpServerConfig, deps: TransportDeps): BuiltTransport {
  switch (config.type) {
    case 'stdio': {
      const launch = stdioLaunch(config, deps);
      if (!existsSync(launch.cwd)) throw new StartupProblem(`working directory does not exist: ${launch.cwd} — fix cwd`);
      const transport = new StdioProcessTransport({
        server: config.name,
        launch,
        logger: deps.logger,
        watchdog: deps.watchdog,
        eofGraceMs: deps.eofGraceMs,
        killGraceMs: deps.killGraceMs,
      });
      return { kind: 'stdio', transport, command: launch.command };
    }
    case 'http': {
      const url = endpoint(config);
      const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: httpHeaders(config, deps.env) } });
      return { kind: 'http', transport, url: url.href };
    }
    case 'sse': {
      const url = endpoint(config);
      const transport = new SSEClientTransport(url, { requestInit: { headers: httpHeaders(config, deps.env) } });
      return { kind: 'sse', transport, url: url.href };
    }
    case 'sandbox':
      throw new StartupProblem('sandbox servers start inside a run\'s sandbox; the hub cannot start them on its own');
    default: {
      const unreachable: never = config.type;
      throw new StartupProblem(`unknown transport type '${String(unreachable)}' — use stdio, http or sse`);
    }
  }
}
