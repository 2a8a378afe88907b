/**
 * A real `weft serve` (the built CLI, its own runner, SQLite in a temp storage dir) for
 * tests over HTTP, with the API called the way a script calls it and a Server-Sent Events
 * reader that stops on a condition, never on time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WEFT_BIN } from './run-cli.js';
import { listeningUrl } from './listening-url.js';

export interface Serve {
  /** `http://127.0.0.1:<port>` */
  url: string;
  token: string;
  dir: string;
  storageDir: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export interface ApiAnswer<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** A workflow that asks one yes/no question and waits (blocked) for the answer. */
export const ASK_WORKFLOW = `
[workflow]
name = "ask"
[nodes.ask]
kind = "human"
question = "Ship it?"
type = "yes_no"
`;

export const TEST_TOKEN = 'serve-kit-token-0123456789abcdef';

/** Starts `weft serve --port 0` in `dir` (a new temp dir when absent) and waits until it listens. */
export async function startServe(
  options: { dir?: string; args?: string[]; env?: Record<string, string>; tokenEnv?: boolean } = {},
): Promise<Serve> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'weft-serve-'));
  const storageDir = join(dir, '.home');
  const child = spawn(
    process.execPath,
    [
      WEFT_BIN,
      '--storage-dir',
      storageDir,
      '--cwd',
      dir,
      'serve',
      '--port',
      '0',
      ...(options.tokenEnv === false ? [] : ['--token-env', 'WEFT_TEST_TOKEN']),
      ...(options.args ?? []),
    ],
    {
      cwd: dir,
      env: { ...process.env, WEFT_MCP_TOKEN: '', WEFT_TEST_TOKEN: TEST_TOKEN, WEFT_LEASE_MS: '3000', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const { url, output } = await listeningUrl(child);
  return {
    url,
    token: TEST_TOKEN,
    dir,
    storageDir,
    child,
    output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        await exited;
      }
      if (options.dir === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One API call; `headers` replace the bearer token when they carry their own authorization. */
export async function callApi<T = unknown>(
  serve: Serve,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiAnswer<T>> {
  const response = await fetch(`${serve.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${serve.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  return { status: response.status, headers: response.headers, body: (type.includes('json') && text ? JSON.parse(text) : text) as T };
}

export interface SseMessage<Data> {
  event: string;
  id: string;
  data: Data;
}

export type SseEvent = SseMessage<{ seq: number; type: string; payload: Record<string, unknown> }>;

/**
 * Reads a run's event stream until `done(events)` holds, then disconnects.
 *
 * @example await readEvents(serve, runId, (events) => events.some((e) => e.event === 'run-status-changed'))
 */
export function readEvents(serve: Serve, runId: string, done: (events: SseEvent[]) => boolean, lastEventId?: number): Promise<SseEvent[]> {
  return readStream(serve, `/runs/${runId}/events`, done, lastEventId);
}

/**
 * Reads the Server-Sent Events stream of an API path until `done(messages)` holds, then
 * disconnects; `opened` is called once the server has answered.
 */
export async function readStream<Data>(
  serve: Serve,
  path: string,
  done: (messages: SseMessage<Data>[]) => boolean,
  lastEventId?: number,
  opened?: () => void,
): Promise<SseMessage<Data>[]> {
  const abort = new AbortController();
  const response = await fetch(`${serve.url}/api/v1${path}`, {
    headers: {
      authorization: `Bearer ${serve.token}`,
      accept: 'text/event-stream',
      ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }),
    },
    signal: abort.signal,
  });
  if (response.status !== 200 || !response.body) throw new Error(`event stream answered ${response.status}: ${await response.text()}`);
  opened?.();
  const events: SseMessage<Data>[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) throw new Error(`event stream ended after ${events.length} events`);
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = new Map<string, string>();
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const at = line.indexOf(':');
          fields.set(line.slice(0, at), line.slice(at + 1).trimStart());
        }
        if (!fields.has('data')) continue;
        events.push({ event: fields.get('event') ?? 'message', id: fields.get('id') ?? '', data: JSON.parse(fields.get('data')!) as Data });
        if (done(events)) return events;
      }
    }
  } finally {
    abort.abort();
    await reader.cancel().catch(() => undefined);
  }
}

/** Follows the run's events until it reaches `status`; returns every event read. */
export function untilStatus(serve: Serve, runId: string, status: string): Promise<SseEvent[]> {
  return readEvents(serve, runId, (events) =>
    events.some((event) => event.event === 'run-status-changed' && event.data.payload.to === status),
  );
}
