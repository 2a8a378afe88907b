/**
 * Ports inside a sandbox's own network namespace, reached from outside: whether a process
 * of the sandbox listens on a port (read from `/proc/<pid>/net/tcp` of a process in that
 * namespace, so weft never connects to find out), and a host loopback port that pipes each
 * connection into the Unix socket that `socat` inside turns into 127.0.0.1:<port>. For
 * `type = "sandbox"` MCP servers started inside the OS sandbox.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';

function children(pid: number): number[] {
  try {
    const tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8');
    return tasks
      .split(/\s+/)
      .filter((item) => item !== '')
      .map(Number);
  } catch {
    return [];
  }
}

function netNamespace(pid: number | 'self'): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return undefined;
  }
}

/** Whether a socket in `table` (a `/proc/net/tcp` or `tcp6` text) listens on `port`. */
export function listensIn(table: string, port: number): boolean {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  return table.split('\n').some((line) => {
    const [, local, , state] = line.trim().split(/\s+/);
    return state === '0A' && local?.endsWith(`:${hex}`) === true;
  });
}

/**
 * Whether a process started by `pid` (bwrap) in another network namespace listens on `port` there.
 * @example listensInside(child.pid, 3000) // true once the server inside called listen()
 */
export function listensInside(pid: number, port: number): boolean {
  const own = netNamespace('self');
  const queue = [pid];
  for (let seen = 0; queue.length > 0 && seen < 1000; seen++) {
    const current = queue.shift()!;
    const namespace = netNamespace(current);
    if (namespace !== undefined && namespace !== own) {
      for (const file of ['tcp', 'tcp6']) {
        try {
          if (listensIn(readFileSync(`/proc/${current}/net/${file}`, 'utf8'), port)) return true;
        } catch {
          // gone meanwhile, or no IPv6
        }
      }
      return false;
    }
    queue.push(...children(current));
  }
  return false;
}

/** A listener on 127.0.0.1 (an ephemeral port) piping each connection into `socketPath`. */
export async function forwardToSocket(socketPath: string): Promise<{ port: number; server: Server }> {
  const server = createServer((client) => {
    const inner = connect(socketPath);
    client.on('error', () => inner.destroy());
    inner.on('error', () => client.destroy());
    client.pipe(inner).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  return { port: typeof address === 'object' && address !== null ? address.port : 0, server };
}
