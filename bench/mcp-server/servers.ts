/**
 * bench/mcp-server: the servers under test, each with an official SDK v2 `Client`
 * connected to it and the server's pid (for its CPU time): `weft mcp start` over stdio and
 * over HTTP, and the baseline SDK server over HTTP (`bare-http-server.mjs`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { BENCH_DIR, REPO_ROOT } from '../lib/paths.js';

/** The weft under test; `WEFT_BENCH_BIN` points the benchmark at another build (say, the previous commit's). */
export const WEFT_BIN = process.env.WEFT_BENCH_BIN ?? join(REPO_ROOT, 'bin/weft.js');
const BARE_SERVER = join(BENCH_DIR, 'mcp-server/bare-http-server.mjs');

export interface Connected {
  client: Client;
  pid: number | undefined;
  close(): Promise<void>;
}

export async function weftOverStdio(storageDir: string): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [WEFT_BIN, '--storage-dir', storageDir, 'mcp', 'start'],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-stdio', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid ?? undefined, close: () => client.close() };
}

export async function weftOverHttp(storageDir: string): Promise<Connected> {
  const child = spawn(process.execPath, [WEFT_BIN, '--storage-dir', storageDir, 'mcp', 'start', '--http', '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await listeningUrl(child, 'weft mcp start --http');
  const token = readFileSync(join(storageDir, 'mcp-server-token'), 'utf8').trim();
  return connectHttp(child, url, { authorization: `Bearer ${token}` }, 'bench-http');
}

/** The baseline: a trivial SDK server whose one tool `get` answers `result`. */
export async function bareOverHttp(result: unknown): Promise<Connected> {
  const child = spawn(process.execPath, [BARE_SERVER], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, BARE_RESULT: JSON.stringify(result) },
  });
  return connectHttp(child, await listeningUrl(child, 'bare-http-server.mjs'), {}, 'bench-bare');
}

async function connectHttp(child: ChildProcess, url: string, headers: Record<string, string>, name: string): Promise<Connected> {
  // The SDK's HTTP client passes one long-lived AbortSignal to every fetch, and undici keeps a
  // listener on it per request until the request is collected: thousands of calls trip Node's
  // leak warning in this (client) process. Not the server's doing; silence it for the run.
  setMaxListeners(0);
  const client = new Client({ name, version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
  return {
    client,
    pid: child.pid,
    close: async () => {
      await client.close();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function listeningUrl(child: ChildProcess, what: string): Promise<string> {
  let stderr = '';
  return new Promise<string>((resolve, reject) => {
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}: ${stderr}`)));
  });
}
