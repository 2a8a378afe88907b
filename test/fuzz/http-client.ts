/**
 * The fuzzer's raw HTTP client: any method, headers and bytes (node:http, so nothing is
 * normalised away), a body in one or two writes, a request abandoned half-way, and a
 * deadline after which the request counts as unanswered.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { HANG_MS } from './stdio-target.js';

export interface RawAnswer {
  /** 0: the server hung up before answering (see `send`). */
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Bodies above this may be refused by hanging up (both servers' bounds are at most 4 MiB). */
export const HANG_UP_ALLOWED_ABOVE_BYTES = 4 * 1024 * 1024;

/**
 * Sends one request; `undefined` when no complete answer came within HANG_MS. With
 * `streamsEnd` false an SSE answer counts once its headers arrive (it may never end).
 */
export function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: Buffer,
  split = false,
  streamsEnd = true,
): Promise<RawAnswer | undefined> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: RawAnswer | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const req = request(url, { method, headers, agent: false }, (res) => {
      // A stream that stays open (a listen subscription, a live list) is answered once its headers are.
      if (String(res.headers['content-type'] ?? '').includes('text/event-stream') && !streamsEnd) {
        finish({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
        return void res.destroy();
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => finish({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => finish(undefined));
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish(undefined);
    }, HANG_MS);
    // A refused connection is an answer of sorts only if the server is gone: report it as none.
    // A server that refuses a body it will not read may hang up while it is still being sent.
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish(
        error.code === 'EPIPE' || error.code === 'ECONNRESET' ? { status: 0, headers: {}, body: `hang-up (${error.code})` } : undefined,
      ),
    );
    // A server that answers early (413) and hangs up makes the socket fail mid-write, after the answer.
    req.on('socket', (socket) => socket.on('error', () => undefined));
    if (body === undefined) return void req.end();
    if (!split) return void req.end(body);
    const cut = Math.max(1, Math.floor(body.length / 2));
    req.write(body.subarray(0, cut), () => req.end(body.subarray(cut)));
  });
}

/** Declares a body longer than it sends, sends half, and hangs up: the server must cope and move on. */
export function abandon(url: string, headers: Record<string, string>, body: Buffer): Promise<void> {
  const target = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(target.port), target.hostname, () => {
      const head = [
        `POST ${target.pathname} HTTP/1.1`,
        `Host: ${target.host}`,
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        `Content-Length: ${body.length + 1000}`,
        '',
        '',
      ].join('\r\n');
      socket.write(head);
      socket.end(body.subarray(0, Math.floor(body.length / 2)));
    });
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
    socket.resume();
  });
}

/** The JSON-RPC messages in an answer body: one JSON value, or the `data:` lines of an SSE stream. */
export function messagesOf(answer: RawAnswer): unknown[] {
  const type = String(answer.headers['content-type'] ?? '');
  const texts = type.includes('text/event-stream')
    ? answer.body
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
    : [answer.body];
  const messages: unknown[] = [];
  for (const text of texts) {
    if (text === '') continue;
    try {
      const value = JSON.parse(text) as unknown;
      messages.push(...(Array.isArray(value) ? value : [value]));
    } catch {
      messages.push({ error: { code: 0, message: `unparseable answer (HTTP ${answer.status}): ${text.slice(0, 200)}` } });
    }
  }
  return messages;
}
