/**
 * The live heap of another Node process, after a full GC, through its inspector: RSS alone
 * cannot tell a leak from V8 keeping freed heap pages for the next burst of allocations
 * (a `weft serve` under load held 160 MB of heap for 51 MB of live objects). The process
 * is started with `--inspect-port=<port>` and sent SIGUSR1 to open its inspector; the probe
 * asks for a collection and `process.memoryUsage()`, then closes the inspector again. Needs
 * a global WebSocket (Node 22, or Node 20 with `--experimental-websocket`, which
 * `npm run soak` passes).
 */

export interface HeapProbe {
  /** Live objects after a full collection. */
  heapUsedMb: number;
  /** What V8 holds for the heap, live or not. */
  heapTotalMb: number;
  rssMb: number;
}

interface Target {
  webSocketDebuggerUrl: string;
}

async function targetOn(port: number, deadline: number): Promise<Target> {
  for (;;) {
    try {
      const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Target[];
      if (targets[0]) return targets[0];
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`no inspector answered on 127.0.0.1:${port}: ${String(error)}`, { cause: error });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Opens `pid`'s inspector (listening on `port`), collects garbage there and reads its memory. */
export async function probeHeap(pid: number, port: number, timeoutMs = 20_000): Promise<HeapProbe> {
  if (typeof WebSocket !== 'function')
    throw new Error('probeHeap needs a global WebSocket: run node with --experimental-websocket on Node 20.');
  process.kill(pid, 'SIGUSR1');
  const target = await targetOn(port, Date.now() + timeoutMs);
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', () => reject(new Error(`could not connect to ${target.webSocketDebuggerUrl}`)), { once: true });
  });
  let next = 0;
  const call = (method: string, params: Record<string, unknown> = {}): Promise<{ result?: { value?: unknown } }> =>
    new Promise((resolve) => {
      const id = ++next;
      const onMessage = (event: MessageEvent) => {
        const message = JSON.parse(String(event.data)) as { id?: number; result?: { result?: { value?: unknown } } };
        if (message.id !== id) return;
        socket.removeEventListener('message', onMessage);
        resolve(message.result ?? {});
      };
      socket.addEventListener('message', onMessage);
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    const usage = await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
    const memory = JSON.parse(String(usage.result?.value)) as { heapUsed: number; heapTotal: number; rss: number };
    const mb = (bytes: number) => Math.round(bytes / 1048576);
    return { heapUsedMb: mb(memory.heapUsed), heapTotalMb: mb(memory.heapTotal), rssMb: mb(memory.rss) };
  } finally {
    // The inspector goes away again (the next probe opens it anew); it drops this connection without an answer.
    socket.send(
      JSON.stringify({
        id: ++next,
        method: 'Runtime.evaluate',
        params: { expression: "process.getBuiltinModule?.('inspector')?.close()" },
      }),
    );
    socket.close();
  }
}
