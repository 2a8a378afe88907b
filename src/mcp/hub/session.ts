/**
 * One connection attempt to a server: transport, client, handshake and discovery, all
 * within `startup_timeout` (a sandbox server first gets its own wait until it listens).
 * Yields a live `Session` or a `ConnectFailure` whose message says what to do, with the
 * server's stderr tail; a failed attempt leaves no process.
 */
import type { Client, Implementation } from '@modelcontextprotocol/client';
import type { Logger } from '../../core/logger.js';
import type { McpServerConfig } from '../config/server-config.js';
import { createClient, type ClientEvents } from './client-factory.js';
import { DirectToolCalls } from '../fast-path/direct-tool-calls.js';
import { discover, type Discovery } from './discovery.js';
import { StartupTimeout, describeStartupFailure } from './startup-failure.js';
import { createTransport, localProcess, type BuiltTransport, type TransportDeps } from './transport-factory.js';
import type { McpHubHandlers } from './types.js';
import { WeftClient } from '../fast-path/weft-client.js';
import { mcpFastPath } from '../fast-path/fast-path-switch.js';

export interface SessionParts {
  client: Client;
  built: BuiltTransport;
}

export interface Session extends SessionParts {
  /** The connection attempt this session came from; newer attempts have larger numbers. */
  generation: number;
  discovery: Discovery;
  serverInfo?: Implementation;
  protocolVersion?: string;
  /** The hub's own `tools/call` path, on a stdio server that speaks the 2025 era (`direct-tool-calls.ts`). */
  directCalls?: DirectToolCalls;
}

export class ConnectFailure extends Error {
  readonly stderrTail: string[];

  constructor(message: string, stderrTail: string[]) {
    super(message);
    this.name = 'ConnectFailure';
    this.stderrTail = stderrTail;
  }
}

export interface SessionDeps extends TransportDeps {
  handlers: McpHubHandlers;
  clientVersion: string;
  /** `[mcp] fast_path` from the settings; `WEFT_MCP_FAST_PATH` wins over it (`fast-path-switch.ts`). */
  fastPath?: boolean | undefined;
}

export interface OpenSessionOptions {
  config: McpServerConfig;
  deps: SessionDeps;
  generation: number;
  serverLogger: Logger;
  events: (client: Client) => ClientEvents;
  /** Told about the attempt's parts at once (and when it is over), so a `close()` meanwhile can end them. */
  onAttempt: (parts: SessionParts, over: boolean) => void;
  /** The established session's connection closed. */
  onLost: (session: Session, reason: string) => void;
  onError: (session: Session, error: Error) => void;
}

export async function openSession(options: OpenSessionOptions): Promise<Session> {
  const { config, deps, generation } = options;
  const timeoutMs = config.startupTimeoutMs;
  let built: BuiltTransport;
  try {
    built = createTransport(config, deps);
  } catch (error) {
    throw new ConnectFailure(describeStartupFailure(error, {}), []);
  }
  const client: Client = createClient({
    server: config.name,
    clientVersion: deps.clientVersion,
    workspaceRoot: deps.workspaceRoot,
    handlers: deps.handlers,
    samplingEnabled: config.sampling,
    configFile: config.source.file,
    fastPath: mcpFastPath(deps.env, deps.fastPath),
    serverLogger: options.serverLogger,
    events: {
      onListChanged: (kind) => events.onListChanged(kind),
      onResourceUpdated: (uri) => events.onResourceUpdated(uri),
      onAnswering: (busy) => events.onAnswering(busy),
      callOrigin: () => events.callOrigin(),
    },
  });
  const events = options.events(client);
  options.onAttempt({ client, built }, false);
  if (built.kind === 'sandbox') await launchSandbox({ client, built }, options);

  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StartupTimeout(timeoutMs)), timeoutMs);
  });
  const handshake = (async (): Promise<Session> => {
    await client.connect(built.transport, { timeout: timeoutMs });
    const discovery = await discover(client, { timeout: timeoutMs }, deps.logger, config.name);
    const serverInfo = client.getServerVersion();
    const protocolVersion = client.getNegotiatedProtocolVersion();
    const directCalls =
      built.kind === 'stdio' && client instanceof WeftClient && DirectToolCalls.serves(client)
        ? new DirectToolCalls(built.transport, client)
        : undefined;
    return {
      generation,
      client,
      built,
      discovery,
      ...(serverInfo ? { serverInfo } : {}),
      ...(protocolVersion ? { protocolVersion } : {}),
      ...(directCalls ? { directCalls } : {}),
    };
  })();
  handshake.catch(() => {});
  try {
    const session = await Promise.race([handshake, deadline]);
    client.onclose = () => options.onLost(session, 'the connection closed');
    client.onerror = (error) => options.onError(session, error);
    if (built.kind === 'sandbox') built.process.onExit = (exit) => options.onLost(session, `the server ${exit}`);
    return session;
  } catch (error) {
    // Read before disposing: the exit we cause ourselves is not the story.
    const exit = localProcess(built)?.exitDescription;
    await disposeParts({ client, built });
    const line = describeStartupFailure(error, {
      ...(built.kind === 'stdio' ? { command: built.command } : { url: built.url }),
      ...(exit ? { exit } : {}),
    });
    throw new ConnectFailure(line, localProcess(built)?.stderrTail.lines() ?? []);
  } finally {
    clearTimeout(timer);
    options.onAttempt({ client, built }, true);
  }
}

/**
 * Starts a sandbox server's process and waits until it listens — before the handshake's
 * `startup_timeout` starts counting. A failure ends the attempt, with the stderr tail.
 */
async function launchSandbox(
  parts: { client: Client; built: Extract<BuiltTransport, { kind: 'sandbox' }> },
  options: OpenSessionOptions,
): Promise<void> {
  const { built } = parts;
  try {
    await built.process.start();
  } catch (error) {
    const exit = built.process.exitDescription;
    await disposeParts(parts);
    options.onAttempt(parts, true);
    throw new ConnectFailure(
      describeStartupFailure(error, { command: built.command, ...(exit ? { exit } : {}) }),
      built.process.stderrTail.lines(),
    );
  }
}

/** Closes the client and its transport (for stdio: stdin, SIGTERM, SIGKILL of the group; for sandbox: the process group). */
export async function disposeParts(parts: SessionParts): Promise<void> {
  parts.client.onclose = undefined;
  parts.client.onerror = undefined;
  await parts.client.close().catch(() => {});
  await parts.built.transport.close().catch(() => {});
  if (parts.built.kind === 'sandbox') {
    parts.built.process.onExit = undefined;
    await parts.built.process.stop();
  }
}
