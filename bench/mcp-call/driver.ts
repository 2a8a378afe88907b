/**
 * bench/mcp-call: the contract between the measurement protocol and the three clients
 * under test (weft's hub, the bare SDK v2 client, the bare SDK v1 client). A driver
 * connects a set of echo servers; the connection exposes one or more ways to call them.
 */

/** One echo server to start (`bench/mcp-call/echo-server.mjs`). */
export interface EchoServer {
  /** Absolute path of echo-server.mjs. */
  script: string;
  /** Milliseconds the server holds its `initialize` answer (ECHO_INIT_DELAY_MS). */
  initDelayMs: number;
}

/** One way of calling a tool; the hub offers two (`Tool.execute` and `ToolExecutor`). */
export interface Caller {
  key: string;
  label: string;
  /** Calls `tool` on the `server`-th connected server; resolves with the answer's text. */
  call(server: number, tool: string, args: Record<string, unknown>): Promise<string>;
}

export interface Connection {
  /** The first caller is the phase's headline number. */
  callers: readonly Caller[];
  /** Disconnects every server and waits until their processes are gone. */
  close(): Promise<void>;
}

export interface ClientDriver {
  label: string;
  /**
   * Resolves once every server has answered `initialize` and `tools/list` (what "ready"
   * means for all three clients). `parallel` starts them all at once; `sequential` one
   * after another, for reference.
   */
  connect(servers: readonly EchoServer[], order: 'parallel' | 'sequential'): Promise<Connection>;
}

/** The environment a bare client gives each server (weft's hub builds its own safe one). */
export function serverEnvironment(server: EchoServer): Record<string, string> {
  const env: Record<string, string> = { ECHO_INIT_DELAY_MS: String(server.initDelayMs) };
  for (const name of ['PATH', 'HOME', 'LANG', 'TMPDIR']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** The text of the first content block of an SDK `tools/call` result; throws on anything else. */
export function firstText(result: unknown): string {
  if (typeof result === 'object' && result !== null) {
    const { content, isError } = result as { content?: unknown; isError?: unknown };
    if (Array.isArray(content)) {
      const first: unknown = content[0];
      if (typeof first === 'object' && first !== null && (first as { type?: unknown }).type === 'text') {
        const text = (first as { text?: unknown }).text;
        if (typeof text === 'string' && isError !== true) return text;
      }
    }
  }
  throw new Error(`unexpected tools/call result: ${JSON.stringify(result).slice(0, 200)}`);
}

/** Runs `connect` for every server, all at once or one after another. */
export async function connectEach<T>(
  servers: readonly EchoServer[],
  order: 'parallel' | 'sequential',
  connect: (server: EchoServer) => Promise<T>,
): Promise<T[]> {
  if (order === 'parallel') return Promise.all(servers.map(connect));
  const connected: T[] = [];
  for (const server of servers) connected.push(await connect(server));
  return connected;
}
