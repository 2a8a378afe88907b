/**
 * bench/serve, the live runs list: subscribers on `GET /api/v1/runs` as an SSE stream while
 * another process (a store of its own, as the CLI or a runner) creates runs; latency from the
 * create to each subscriber reading the new run, every run to every subscriber.
 */
import { join } from 'node:path';
import { SqliteRunStore } from '../../src/runs/store/sqlite/sqlite-run-store.js';
import { now, sleep } from '../lib/measure.js';
import { summarize, type Summary } from '../lib/stats.js';

export interface ListStreamResults {
  subscribers: number;
  runs: number;
  delivered: number;
  latency: Summary;
}

/** One subscriber on the list of `listed` runs (not the per-run phase's busy one): records when each run id first arrived; stops once it has `expected` of them. */
async function subscribe(
  url: string,
  headers: Record<string, string>,
  arrived: Map<string, number>,
  expected: number,
  ready: () => void,
): Promise<void> {
  const response = await fetch(`${url}/api/v1/runs?workflow=listed`, { headers: { ...headers, accept: 'text/event-stream' } });
  if (response.status !== 200 || !response.body) throw new Error(`no list stream: ${response.status}`);
  ready();
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    while (arrived.size < expected) {
      const { value, done } = await reader.read();
      if (done) throw new Error('list stream ended');
      const at = now();
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const id = /^data: \{"id":"(\w+)"/m.exec(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (id?.[1] && !arrived.has(id[1])) arrived.set(id[1], at);
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** `url`: a `weft serve` on `dir`'s store, with no runner (the runs stay submitted). */
export async function listStreamPhase(
  url: string,
  dir: string,
  headers: Record<string, string>,
  subscribers: number,
  runs: number,
  everyMs: number,
): Promise<ListStreamResults> {
  const store = await SqliteRunStore.open({ storageDir: dir });
  try {
    const arrivals = Array.from({ length: subscribers }, () => new Map<string, number>());
    let connected = 0;
    let allConnected!: () => void;
    const everyoneConnected = new Promise<void>((resolve) => (allConnected = resolve));
    const streams = arrivals.map((arrived) =>
      subscribe(url, headers, arrived, runs, () => (connected += 1) === subscribers && allConnected()),
    );
    await everyoneConnected;
    const createdAt = new Map<string, number>();
    for (let index = 0; index < runs; index += 1) {
      const started = now();
      const run = await store.createRun({ workflow: 'listed', workflowPath: join(dir, 'listed.toml'), cwd: dir });
      createdAt.set(run.id, started);
      await sleep(everyMs);
    }
    await Promise.all(streams);
    const latencies: number[] = [];
    for (const arrived of arrivals) for (const [id, at] of arrived) if (createdAt.has(id)) latencies.push(at - createdAt.get(id)!);
    return { subscribers, runs, delivered: latencies.length, latency: summarize(latencies) };
  } finally {
    await store.close();
  }
}
