/**
 * MCP hub against the reference servers: server-everything over stdio, Streamable HTTP
 * and SSE (with an HTTP server that drops and comes back), server-filesystem and
 * server-memory over stdio; sampling, elicitation and roots offered to the server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { McpHub, SamplingRequest, ElicitationRequest } from '../src/mcp/hub/index.js';
import { silentLogger } from '../src/core/logger.js';
import { ApprovalPolicy } from '../src/tools/approval-policy.js';
import { ToolExecutor } from '../src/tools/tool-executor.js';
import { resultText } from '../src/tools/tool.js';
import {
  EVERYTHING,
  FILESYSTEM,
  MEMORY,
  createTestHub,
  freePort,
  serverConfig,
  toolContext,
  waitFor,
  type TestHub,
} from './fixtures/servers/hub-kit.js';

const everythingOverStdio = (name = 'everything') => serverConfig(name, { command: [process.execPath, EVERYTHING, 'stdio'] });

/** Starts server-everything over HTTP on `port`; resolves once it listens. */
async function startHttpEverything(mode: 'streamableHttp' | 'sse', port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything ${mode} did not start: ${output}`)), 15_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (new RegExp(`port ${port}`).test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server-everything ${mode} exited with ${code}: ${output}`)));
  });
  return child;
}

async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('MCP hub with the reference servers over stdio', () => {
  let kit: TestHub;
  let workspace: string;

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'weft-hub-ref-'));
    writeFileSync(join(workspace, 'hello.txt'), 'hello\n');
    kit = createTestHub({ workspaceRoot: workspace });
    await kit.hub.start([
      everythingOverStdio(),
      serverConfig('filesystem', { command: [process.execPath, FILESYSTEM, workspace] }),
      serverConfig('memory', { command: [process.execPath, MEMORY], env: { MEMORY_FILE_PATH: join(workspace, 'memory.jsonl') } }),
    ]);
  });

  afterAll(async () => {
    await kit?.hub.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('discovers the tools of all three servers', () => {
    expect(kit.hub.status().map((status) => [status.name, status.state])).toEqual([
      ['everything', 'ready'],
      ['filesystem', 'ready'],
      ['memory', 'ready'],
    ]);
    for (const name of [
      'mcp__everything__echo',
      'mcp__everything__get-sum',
      'mcp__filesystem__list_directory',
      'mcp__filesystem__read_text_file',
      'mcp__memory__create_entities',
    ]) {
      expect(kit.registry.get(name), name).toBeDefined();
    }
    expect(kit.registry.get('mcp__everything__echo')?.description).toBe('[everything] Echoes back the input string');
  });

  it('calls echo on everything', async () => {
    const result = await kit.registry.get('mcp__everything__echo')?.execute({ message: 'hello' }, toolContext());
    expect(result).toEqual({ content: [{ type: 'text', text: 'Echo: hello' }], isError: false });
  });

  it('calls list_directory on filesystem (the workspace root is the offered root)', async () => {
    const result = await kit.registry.get('mcp__filesystem__list_directory')?.execute({ path: workspace }, toolContext());
    expect(result?.isError).toBe(false);
    expect(resultText(result ?? { content: [], isError: true })).toContain('[FILE] hello.txt');
  });

  it('calls create_entities on memory and keeps its structured output', async () => {
    const entities = [{ name: 'weft', entityType: 'project', observations: ['an agent workflow runtime'] }];
    const result = await kit.registry.get('mcp__memory__create_entities')?.execute({ entities }, toolContext());
    expect(result?.isError).toBe(false);
    expect(result?.structuredContent).toEqual({ entities });
  });

  it('lists and reads resources and resource templates of everything', async () => {
    const resources = await kit.hub.listResources('everything');
    expect(resources.length).toBeGreaterThan(0);
    const first = resources[0];
    expect(first).toMatchObject({ server: 'everything', uri: expect.stringMatching(/^demo:\/\//) });
    const read = await kit.hub.readResource('everything', first?.uri ?? '');
    expect(read.contents.length).toBeGreaterThan(0);
    expect(read.contents[0]).toMatchObject({ type: 'resource', uri: first?.uri });
    expect((await kit.hub.listResourceTemplates('everything')).map((template) => template.uriTemplate)).toContain(
      'demo://resource/dynamic/text/{resourceId}',
    );
    expect(kit.hub.serverStatus('everything').resources).toBe(resources.length);
  });

  it('lists and gets prompts of everything', async () => {
    const prompts = await kit.hub.listPrompts('everything');
    expect(prompts.map((prompt) => prompt.name)).toEqual(expect.arrayContaining(['simple-prompt', 'args-prompt']));
    const prompt = await kit.hub.getPrompt('everything', 'simple-prompt');
    expect(prompt.messages.length).toBeGreaterThan(0);
    expect(prompt.messages[0]).toMatchObject({ role: 'user', content: { type: 'text' } });
  });

  it('offers no sampling or elicitation without handlers', () => {
    expect(kit.registry.get('mcp__everything__trigger-sampling-request')).toBeUndefined();
    expect(kit.registry.get('mcp__everything__trigger-elicitation-request')).toBeUndefined();
  });
});

describe('MCP hub: sampling, elicitation and roots offered to everything', () => {
  const hubs: McpHub[] = [];

  afterEach(async () => {
    await Promise.all(hubs.splice(0).map((hub) => hub.close()));
  });

  it('serves sampling/createMessage and elicitation/create with the wired handlers, and lists the workspace root', async () => {
    const sampled: SamplingRequest[] = [];
    const elicited: ElicitationRequest[] = [];
    const { hub, registry } = createTestHub({
      handlers: {
        sampling: async (request) => {
          sampled.push(request);
          return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled answer' } };
        },
        elicitation: async (request) => {
          elicited.push(request);
          return { action: 'decline' };
        },
      },
    });
    hubs.push(hub);
    await hub.start([serverConfig('everything', { command: [process.execPath, EVERYTHING, 'stdio'], sampling: true })]);
    // everything registers these after the handshake, then sends tools/list_changed.
    const sampling = await waitFor('the sampling tool', () => registry.get('mcp__everything__trigger-sampling-request'));
    const elicitation = await waitFor('the elicitation tool', () => registry.get('mcp__everything__trigger-elicitation-request'));

    const sampledResult = await sampling.execute({ prompt: 'say hi', maxTokens: 10 }, toolContext());
    expect(resultText(sampledResult)).toContain('sampled answer');
    expect(sampled[0]).toMatchObject({ server: 'everything', params: { maxTokens: 10 } });

    const elicitedResult = await elicitation.execute({}, toolContext());
    expect(resultText(elicitedResult)).toContain('declined');
    expect(elicited[0]?.server).toBe('everything');

    const roots = await waitFor('the roots tool', () => registry.get('mcp__everything__get-roots-list'));
    expect(resultText(await roots.execute({}, toolContext()))).toContain(pathToFileURL(toolContext().workspaceRoot).href);
  });

  it('stops the tool_timeout clock while weft answers the server: an elicitation slower than every limit still completes through the executor', async () => {
    const TIMEOUT_MS = 300;
    // A person slower than tool_timeout, max_tool_timeout and any backstop of the executor's: the time passing is what is tested.
    const ANSWER_MS = 1500;
    const { hub, registry } = createTestHub({
      handlers: {
        elicitation: () => new Promise((resolve) => setTimeout(() => resolve({ action: 'decline' }), ANSWER_MS)),
      },
    });
    hubs.push(hub);
    await hub.start([
      serverConfig('everything', {
        command: [process.execPath, EVERYTHING, 'stdio'],
        toolTimeoutMs: TIMEOUT_MS,
        maxToolTimeoutMs: TIMEOUT_MS,
      }),
    ]);
    await waitFor('the elicitation tool', () => registry.get('mcp__everything__trigger-elicitation-request'));
    const executor = new ToolExecutor({
      registry,
      policy: new ApprovalPolicy([]),
      approvalMode: { interactive: false, autoApprove: true },
      artifacts: { save: () => Promise.reject(new Error('nothing is cut here')) },
      logger: silentLogger,
    });
    const started = performance.now();
    const { result } = await executor.execute(
      { id: 'c1', name: 'mcp__everything__trigger-elicitation-request', arguments: {} },
      { workspaceRoot: toolContext().workspaceRoot, readFiles: toolContext().readFiles, signal: new AbortController().signal },
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(ANSWER_MS);
    expect(result.isError ?? false).toBe(false);
    expect(resultText(result)).toContain('declined');
  });

  it('serves sampling only for servers whose config enables it; the others get an error naming the setting', async () => {
    const sampled: SamplingRequest[] = [];
    const { hub, registry } = createTestHub({
      handlers: {
        sampling: async (request) => {
          sampled.push(request);
          return { model: 'm', role: 'assistant', content: { type: 'text', text: 'x' } };
        },
      },
    });
    hubs.push(hub);
    await hub.start([
      serverConfig('everything', {
        command: [process.execPath, EVERYTHING, 'stdio'],
        sampling: false,
        source: { kind: 'project-settings', file: '/p/.weft/settings.toml' },
      }),
    ]);
    const sampling = await waitFor('the sampling tool', () => registry.get('mcp__everything__trigger-sampling-request'));
    const result = await sampling.execute({ prompt: 'say hi', maxTokens: 10 }, toolContext());
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain(
      "sampling is off for MCP server 'everything'; set sampling = true in its entry in /p/.weft/settings.toml to let it use weft's model",
    );
    expect(sampled).toEqual([]);
  });
});

describe('MCP hub with everything over HTTP', () => {
  const hubs: McpHub[] = [];
  const servers: ChildProcess[] = [];

  afterEach(async () => {
    await Promise.all(hubs.splice(0).map((hub) => hub.close()));
    await Promise.all(servers.splice(0).map((server) => stopProcess(server)));
  });

  it('works over Streamable HTTP, and reconnects after the server drops', async () => {
    const port = await freePort();
    servers.push(await startHttpEverything('streamableHttp', port));
    const { hub, registry } = createTestHub();
    hubs.push(hub);
    await hub.start([serverConfig('remote', { type: 'http', url: `http://127.0.0.1:${port}/mcp` })]);
    expect(hub.serverStatus('remote')).toMatchObject({ state: 'ready', type: 'http' });
    const echo = registry.get('mcp__remote__echo');
    expect(await echo?.execute({ message: 'over http' }, toolContext())).toMatchObject({
      content: [{ type: 'text', text: 'Echo: over http' }],
    });

    await stopProcess(servers.pop());
    // The dropped stream (or the failing call) makes the hub check, find it gone, and go offline.
    await echo?.execute({ message: 'anyone?' }, toolContext()).catch(() => undefined);
    await waitFor('the server to count as offline', () => hub.serverStatus('remote').state === 'offline');
    await expect(echo?.execute({ message: 'x' }, toolContext())).rejects.toMatchObject({ message: '[remote] is offline — reconnecting' });

    servers.push(await startHttpEverything('streamableHttp', port));
    await waitFor('the reconnect', () => hub.serverStatus('remote').state === 'ready', 15_000);
    expect(await echo?.execute({ message: 'back' }, toolContext())).toMatchObject({ content: [{ type: 'text', text: 'Echo: back' }] });
    expect(hub.serverStatus('remote').reconnects).toBe(1);
  });

  it('works over SSE', async () => {
    const port = await freePort();
    servers.push(await startHttpEverything('sse', port));
    const { hub, registry } = createTestHub();
    hubs.push(hub);
    await hub.start([serverConfig('legacy', { type: 'sse', url: `http://127.0.0.1:${port}/sse` })]);
    expect(hub.serverStatus('legacy')).toMatchObject({ state: 'ready', type: 'sse' });
    expect(await registry.get('mcp__legacy__echo')?.execute({ message: 'over sse' }, toolContext())).toMatchObject({
      content: [{ type: 'text', text: 'Echo: over sse' }],
    });
    expect((await hub.listPrompts('legacy')).length).toBeGreaterThan(0);
  });

  it('reports a refused connection with a hint', async () => {
    const port = await freePort();
    const { hub } = createTestHub();
    hubs.push(hub);
    const [status] = await hub.start([serverConfig('gone', { type: 'http', url: `http://127.0.0.1:${port}/mcp` })]);
    expect(status).toMatchObject({ state: 'failed', error: `connection refused: http://127.0.0.1:${port}/mcp — is the server running?` });
  });
});
