/**
 * Test kit for `weft mcp start`: a temp workspace with small workflow files and its own
 * storage dir, official SDK v2 clients over stdio and HTTP against the built binary, and
 * teardown that ends every run (so the runners the server started exit) and every server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { WEFT_BIN } from './run-cli.js';

export interface Workspace {
  dir: string;
  storageDir: string;
  remove(): void;
}

/** Workflows: `quick` (one command), `ask` (a choice question, then a command), `slow` (a long command), `fail` (exits 3). */
export function makeWorkspace(prefix = 'weft-mcp-'): Workspace {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const storageDir = join(dir, '.weft-home');
  mkdirSync(join(dir, 'plans'), { recursive: true });
  writeFileSync(
    join(dir, 'quick.toml'),
    '[run]\ngoal = "Say hello"\nlabels = { kind = "quick" }\n\n[nodes.hello]\nkind = "command"\nrun = "echo hello from quick"\n',
  );
  writeFileSync(
    join(dir, 'ask.toml'),
    '[nodes.ask]\nkind = "human"\nquestion = "Ship it?"\ntype = "choice"\noptions = ["ship", "hold"]\nnext = "done"\n\n[nodes.done]\nkind = "command"\nrun = "echo decided"\n',
  );
  writeFileSync(join(dir, 'slow.toml'), '[nodes.wait]\nkind = "command"\nrun = "sleep 60"\n');
  writeFileSync(join(dir, 'fail.toml'), '[nodes.boom]\nkind = "command"\nrun = "echo about to fail; exit 3"\n');
  writeFileSync(join(dir, 'plans', 'goal.md'), 'Ship the release notes\n\nwith details\n');
  return { dir, storageDir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function connectStdio(
  ws: Workspace,
  env: Record<string, string> = {},
  clientOptions?: ConstructorParameters<typeof Client>[1],
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [WEFT_BIN, '--storage-dir', ws.storageDir, 'mcp', 'start'],
    cwd: ws.dir,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'weft-test', version: '1.0.0' }, clientOptions);
  await client.connect(transport);
  // Drained so a chatty server can never block on a full pipe.
  transport.stderr?.on('data', () => undefined);
  return client;
}

export interface HttpServer {
  url: string;
  token: string;
  child: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

/** Spawns `weft mcp start --http --port 0 …` and waits for the line that says where it listens. */
export async function startHttp(ws: Workspace, extra: string[] = [], env: Record<string, string> = {}): Promise<HttpServer> {
  const child = spawn(process.execPath, [WEFT_BIN, '--storage-dir', ws.storageDir, 'mcp', 'start', '--http', '--port', '0', ...extra], {
    cwd: ws.dir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`weft mcp start --http exited with ${code}: ${stderr}`)));
  });
  const token =
    env.WEFT_MCP_TOKEN ?? (extra.includes('--no-auth') ? '' : readFileSync(join(ws.storageDir, 'mcp-server-token'), 'utf8').trim());
  return {
    url,
    token,
    child,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function connectHttp(server: HttpServer): Promise<Client> {
  const client = new Client({ name: 'weft-test-http', version: '1.0.0' });
  const headers: Record<string, string> = server.token ? { authorization: `Bearer ${server.token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }));
  return client;
}

export interface ToolCall {
  isError: boolean;
  text: string;
  data: Record<string, unknown>;
  code?: string;
}

/** Calls a tool; `text` is the first (summary) line, `code` the error code of an isError result. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void,
): Promise<ToolCall> {
  const result = await client.callTool(
    { name, arguments: args },
    { ...(onprogress ? { onprogress, resetTimeoutOnProgress: true } : {}), timeout: 120_000 },
  );
  const first = result.content[0];
  const text = first && first.type === 'text' ? first.text : '';
  const meta = result._meta as { 'weft/error'?: { code: string } } | undefined;
  return {
    isError: result.isError === true,
    text,
    data: (result.structuredContent ?? {}) as Record<string, unknown>,
    ...(meta?.['weft/error'] ? { code: meta['weft/error'].code } : {}),
  };
}

export interface RunView {
  id: string;
  status: string;
  terminal: boolean;
  [key: string]: unknown;
}

/** Creates one run and returns it (fails the test when creation failed). */
export async function createRun(client: Client, run: Record<string, unknown> | string): Promise<RunView> {
  const created = await call(client, 'weft_run_create', { runs: [run] });
  if (created.isError) throw new Error(`create failed: ${created.text}`);
  const results = created.data.results as { run: RunView }[];
  return results[0]!.run;
}

export async function getRun(client: Client, id: string): Promise<RunView> {
  const got = await call(client, 'weft_run_get', { run_id: id });
  if (got.isError) throw new Error(got.text);
  return got.data.run as RunView;
}

/** Waits (through weft_run_gather) until the run is in one of `statuses`. */
export async function waitForStatus(client: Client, id: string, statuses: string[]): Promise<RunView> {
  for (;;) {
    const run = await getRun(client, id);
    if (statuses.includes(run.status)) return run;
    if (run.terminal) throw new Error(`run ${id} ended ${run.status} (${String(run.reason)}) while waiting for ${statuses.join('|')}`);
    await call(client, 'weft_run_gather', { run_ids: [id], timeout_seconds: 0.3 });
  }
}

/** Cancels every run that has not ended and waits until all have, so the runners exit. */
export async function endAllRuns(client: Client): Promise<void> {
  const open = await call(client, 'weft_run_search', {
    status: ['submitted', 'pending', 'queued', 'starting', 'running', 'blocked', 'paused'],
    archived: 'any',
    limit: 500,
  });
  const ids = (open.data.runs as RunView[] | undefined)?.map((run) => run.id) ?? [];
  for (const id of ids) await call(client, 'weft_run_interact', { run_id: id, action: 'cancel', reason: 'test teardown' });
  if (ids.length > 0) await call(client, 'weft_run_gather', { run_ids: ids, timeout_seconds: 60 });
}
