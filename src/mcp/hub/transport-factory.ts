/**
 * Builds the transport for one connection attempt from a server's config: weft's own
 * stdio transport for `stdio`, the SDK's Streamable HTTP and SSE transports for `http`
 * and `sse` (with weft's OAuth provider when the hub has a storage dir and the config
 * sets no Authorization of its own), and for `sandbox` a local server process plus the
 * HTTP or SSE transport to its port. Problems a person must fix (no command, missing
 * token, bad cwd) are thrown as `StartupProblem`s.
 */
import { existsSync } from 'node:fs';
import { SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { AuthProvider, OAuthClientProvider, Transport } from '@modelcontextprotocol/client';
import type { Logger } from '../../core/logger.js';
import { registerSecret } from '../../core/redact.js';
import { buildChildEnv } from '../config/child-env.js';
import type { McpServerConfig } from '../config/server-config.js';
import { StartupProblem } from './startup-failure.js';
import type { StdioLaunch } from './group-child.js';
import { StdioProcessTransport } from '../fast-path/stdio-transport.js';
import { CLIENT_CREDENTIALS_GRANT, MachineClientProvider, readClientCredential } from '../oauth/client-credentials.js';
import { crossAppAccessGrant } from '../oauth/cross-app-access.js';
import { createConnectAuth } from '../oauth/connect-auth.js';
import { SandboxProcess, sandboxUrl } from './sandbox-process.js';
import type { LineTail } from './line-reader.js';
import type { HostEnv } from './types.js';
import type { GroupWatchdog } from '../../core/process-watchdog.js';
import type { ProcessSandbox } from './group-child.js';

export interface TransportDeps {
  workspaceRoot: string;
  env: HostEnv;
  logger: Logger;
  watchdog?: GroupWatchdog;
  eofGraceMs?: number;
  killGraceMs?: number;
  /** OAuth for http/sse servers: tokens from `<storageDir>/mcp-oauth/`. */
  oauth?: { storageDir: string };
  /** How long a sandbox server may take to listen (the larger of this and its startup_timeout). Default 30 s. */
  sandboxListenTimeoutMs?: number;
  /** The run's OS sandbox: stdio servers start inside it. */
  processSandbox?: ProcessSandbox;
}

export type BuiltTransport =
  | { kind: 'stdio'; transport: StdioProcessTransport; command: string }
  | { kind: 'http' | 'sse'; transport: Transport; url: string }
  | { kind: 'sandbox'; transport: Transport; url: string; command: string; process: SandboxProcess };

/** The local process behind a connection: a stdio server, or a sandbox server's process. */
export interface LocalProcess {
  readonly pid: number | undefined;
  readonly exitDescription: string | undefined;
  readonly stderrTail: LineTail;
}

export function localProcess(built: BuiltTransport): LocalProcess | undefined {
  if (built.kind === 'stdio') return built.transport;
  return built.kind === 'sandbox' ? built.process : undefined;
}

export const DEFAULT_SANDBOX_LISTEN_TIMEOUT_MS = 30_000;

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
  for (const [name, value] of Object.entries(headers)) if (SECRET_HEADER.test(name)) registerSecret(value, name);
  if (config.bearerTokenEnvVar) {
    const token = env[config.bearerTokenEnvVar];
    if (!token)
      throw new StartupProblem(`bearer_token_env_var names ${config.bearerTokenEnvVar}, which is not set — export it before starting weft`);
    registerSecret(token, config.bearerTokenEnvVar);
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
        ...(deps.processSandbox ? { processSandbox: deps.processSandbox } : {}),
      });
      return { kind: 'stdio', transport, command: launch.command };
    }
    case 'http':
    case 'sse': {
      const url = endpoint(config);
      const headers = httpHeaders(config, deps.env);
      const hasOwnAuth = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
      const authProvider = hasOwnAuth ? undefined : httpAuth(config, url, deps);
      const options = { requestInit: { headers }, ...(authProvider ? { authProvider } : {}) };
      const transport = config.type === 'http' ? new StreamableHTTPClientTransport(url, options) : new SSEClientTransport(url, options);
      return { kind: config.type, transport, url: url.href };
    }
    case 'sandbox':
      return sandboxTransport(config, deps);
    default: {
      const unreachable: never = config.type;
      throw new StartupProblem(`unknown transport type '${String(unreachable)}' — use stdio, http, sse or sandbox`);
    }
  }
}

/** Servers with a grant weft completes itself get a machine client; others the tokens `weft mcp login` stored. */
function httpAuth(config: McpServerConfig, url: URL, deps: TransportDeps): AuthProvider | OAuthClientProvider | undefined {
  const oauth = config.oauth;
  if (oauth?.grant !== undefined && oauth.clientId !== undefined) {
    const credential = readClientCredential(config.name, oauth, deps.env);
    const grant = oauth.grant === 'cross_app_access' ? crossAppAccessGrant(config.name, oauth, deps.env) : CLIENT_CREDENTIALS_GRANT;
    return new MachineClientProvider(oauth.clientId, credential, grant);
  }
  return deps.oauth ? createConnectAuth({ server: config.name, serverUrl: url, storageDir: deps.oauth.storageDir }) : undefined;
}

/**
 * The local sandbox: the server runs as a detached process on this machine (`PORT` set
 * to its port unless its env says otherwise) and is reached on 127.0.0.1:<port>, at
 * `/mcp` for Streamable HTTP and `/sse` for SSE. The process starts in `openSession`.
 */
function sandboxTransport(config: McpServerConfig, deps: TransportDeps): BuiltTransport {
  const { port } = config;
  if (port === undefined) throw new StartupProblem('no port — set port = 3000 (the port the sandbox server listens on)');
  const launch = stdioLaunch(config, deps);
  if (!existsSync(launch.cwd)) throw new StartupProblem(`working directory does not exist: ${launch.cwd} — fix cwd`);
  if (!Object.hasOwn(config.env, 'PORT')) launch.env.PORT = String(port);
  const process = new SandboxProcess({
    server: config.name,
    launch,
    port,
    logger: deps.logger,
    watchdog: deps.watchdog,
    listenTimeoutMs: Math.max(deps.sandboxListenTimeoutMs ?? DEFAULT_SANDBOX_LISTEN_TIMEOUT_MS, config.startupTimeoutMs),
    killGraceMs: deps.killGraceMs,
    ...(deps.processSandbox ? { processSandbox: deps.processSandbox } : {}),
  });
  const url = sandboxUrl(port, config.protocol);
  const options = deps.processSandbox ? { fetch: intoSandbox(deps.processSandbox, port) } : {};
  const transport = config.protocol === 'sse' ? new SSEClientTransport(url, options) : new StreamableHTTPClientTransport(url, options);
  return { kind: 'sandbox', transport, url: url.href, command: launch.command, process };
}

/**
 * Inside the run's OS sandbox the server listens on its own network namespace's 127.0.0.1:
 * requests go to the host port that the sandbox pipes to it (its URL keeps the server's port).
 */
function intoSandbox(sandbox: ProcessSandbox, port: number): (input: string | URL, init?: RequestInit) => Promise<Response> {
  let exposed: Promise<number> | undefined;
  return async (input, init) => {
    exposed ??= sandbox.exposePort(port);
    const target = new URL(input instanceof URL ? input.href : input);
    target.port = String(await exposed);
    return fetch(target, init);
  };
}
