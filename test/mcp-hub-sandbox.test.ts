/**
 * Sandbox transport in the local sandbox: server-everything started as a detached
 * process group over Streamable HTTP and SSE, reached on 127.0.0.1:<port>, registered
 * with the watchdog and gone after close/remove; servers that never listen, exit at
 * once, find their port taken, or die after they were ready.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../src/mcp/config/server-config.js';
import type { McpHub } from '../src/mcp/hub/index.js';
import { groupAlive } from '../src/core/process-group.js';
import { recordingWatchdog } from './kits/watchdog-kit.js';
import {
  EVERYTHING,
  createTestHub,
  freePort,
  pidAlive,
  serverConfig,
  toolContext,
  waitFor,
  type TestHub,
} from './fixtures/servers/hub-kit.js';

function sandboxConfig(name: string, port: number, fields: Partial<McpServerConfig> = {}): McpServerConfig {
  return serverConfig(name, { type: 'sandbox', port, protocol: 'streamable_http', ...fields });
}

describe('MCP hub sandbox transport (local sandbox)', () => {
  const hubs: McpHub[] = [];
  const blockers: Server[] = [];
  let tmp: string;

  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'weft-hub-sandbox-'));
  });

  afterEach(async () => {
    await Promise.all(hubs.splice(0).map((hub) => hub.close()));
    await Promise.all(blockers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
    rmSync(tmp, { recursive: true, force: true });
  });

  function testHub(options: Parameters<typeof createTestHub>[0] = {}): TestHub & { watchdog: ReturnType<typeof recordingWatchdog> } {
    const watchdog = recordingWatchdog();
    const kit = createTestHub({ watchdog, ...options });
    hubs.push(kit.hub);
    return { ...kit, watchdog };
  }

  it('starts server-everything over Streamable HTTP, lists and calls its tools, and stops it with the hub', async () => {
    const port = await freePort();
    const { hub, registry, watchdog } = testHub();
    // server-everything picks its port from PORT, which weft sets to the configured port.
    const [status] = await hub.start([sandboxConfig('sbx', port, { command: [process.execPath, EVERYTHING, 'streamableHttp'] })]);
    expect(status).toMatchObject({ state: 'ready', type: 'sandbox', serverInfo: { name: expect.any(String) } });
    expect(status?.tools).toBeGreaterThan(5);
    expect(registry.get('mcp__sbx__echo')).toBeDefined();
    expect(await registry.get('mcp__sbx__echo')?.execute({ message: 'from the sandbox' }, toolContext())).toMatchObject({
      content: [{ type: 'text', text: 'Echo: from the sandbox' }],
    });

    const pid = status?.pid;
    expect(pid).toBeGreaterThan(0);
    expect(pidAlive(pid as number)).toBe(true);
    // Its own process group (setsid-style), watched so it never outlives weft.
    expect(groupAlive(pid as number)).toBe(true);
    expect(watchdog.watched.has(pid as number)).toBe(true);

    await hub.close();
    expect(pidAlive(pid as number)).toBe(false);
    expect(groupAlive(pid as number)).toBe(false);
    expect(watchdog.watched.size).toBe(0);
  });

  it('speaks SSE when protocol = "sse", and removeServer stops the process', async () => {
    const port = await freePort();
    const { hub, registry } = testHub();
    const [status] = await hub.start([sandboxConfig('legacy', port, { protocol: 'sse', command: [process.execPath, EVERYTHING, 'sse'] })]);
    expect(status).toMatchObject({ state: 'ready', type: 'sandbox' });
    expect(await registry.get('mcp__legacy__echo')?.execute({ message: 'over sse' }, toolContext())).toMatchObject({
      content: [{ type: 'text', text: 'Echo: over sse' }],
    });
    const pid = status?.pid as number;
    await hub.removeServer('legacy');
    expect(registry.get('mcp__legacy__echo')).toBeUndefined();
    expect(pidAlive(pid)).toBe(false);
  });

  it('fails a server that never listens within the listen timeout, and leaves no process', async () => {
    const port = await freePort();
    const pidFile = join(tmp, 'silent.pid');
    const { hub, watchdog } = testHub({ sandboxListenTimeoutMs: 800 });
    const started = Date.now();
    const [status] = await hub.start([
      sandboxConfig('silent', port, {
        startupTimeoutMs: 500,
        script: `echo $$ > '${pidFile}'; echo 'warming up forever' >&2; exec ${JSON.stringify(process.execPath)} -e 'setInterval(() => {}, 1000)'`,
      }),
    ]);
    const elapsed = Date.now() - started;
    expect(status).toMatchObject({
      state: 'failed',
      error: `the server did not listen on 127.0.0.1:${port} within 800ms — check that it listens on port ${port} (weft sets PORT=${port} for it), or raise startup_timeout`,
      stderrTail: ['warming up forever'],
    });
    expect(elapsed).toBeGreaterThanOrEqual(800);
    expect(elapsed).toBeLessThan(5000);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(pidAlive(pid)).toBe(false);
    expect(watchdog.everWatched).toEqual([pid]);
    expect(watchdog.watched.size).toBe(0);
  });

  it('reports a server that exits at once with its stderr tail', async () => {
    const port = await freePort();
    const { hub } = testHub();
    const [status] = await hub.start([sandboxConfig('broken', port, { script: "echo 'fatal: no config file' >&2; exit 3" })]);
    expect(status).toMatchObject({
      state: 'failed',
      error: `the server exited with code 3 before listening on port ${port} — see its stderr below`,
      stderrTail: ['fatal: no config file'],
    });
    const warning = hub.status()[0]?.error;
    expect(warning).toContain('exited with code 3');
  });

  it('reports a missing command and a taken port without starting anything', async () => {
    const port = await freePort();
    const blocker = createServer(() => {});
    blockers.push(blocker);
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    const { hub, watchdog } = testHub();
    const statuses = await hub.start([
      sandboxConfig('missing', await freePort(), { command: ['weft-test-no-such-command'] }),
      sandboxConfig('taken', port, { command: [process.execPath, EVERYTHING, 'streamableHttp'] }),
    ]);
    expect(statuses.map((status) => status.error)).toEqual([
      'command not found: weft-test-no-such-command — is it installed and on PATH?',
      `port ${port} is already in use on 127.0.0.1 before the server started — stop whatever listens there, or pick another port`,
    ]);
    expect(watchdog.everWatched).toEqual([]);
  });

  it('close() while a sandbox server is still starting ends the wait and the process', async () => {
    const port = await freePort();
    const { hub, watchdog } = testHub({ sandboxListenTimeoutMs: 60_000 });
    const starting = hub.start([sandboxConfig('slow', port, { command: [process.execPath, '-e', 'setInterval(() => {}, 1000)'] })]);
    const pid = await waitFor('the process to start', () => hub.status()[0]?.pid);
    expect(hub.status()[0]?.state).toBe('connecting');
    const closed = Date.now();
    await hub.close();
    await starting;
    expect(Date.now() - closed).toBeLessThan(5000);
    expect(pidAlive(pid)).toBe(false);
    expect(watchdog.watched.size).toBe(0);
  });

  it('reconnects (with a new process) when the sandbox server dies after it was ready', async () => {
    const port = await freePort();
    const { hub, registry } = testHub();
    await hub.start([sandboxConfig('phoenix', port, { command: [process.execPath, EVERYTHING, 'streamableHttp'] })]);
    const firstPid = hub.serverStatus('phoenix').pid as number;
    process.kill(-firstPid, 'SIGKILL');
    await waitFor('the server to count as offline', () => hub.serverStatus('phoenix').state !== 'ready');
    await waitFor('the reconnect', () => hub.serverStatus('phoenix').state === 'ready', 20_000);
    const status = hub.serverStatus('phoenix');
    expect(status.pid).not.toBe(firstPid);
    expect(status.reconnects).toBe(1);
    expect(await registry.get('mcp__phoenix__echo')?.execute({ message: 'again' }, toolContext())).toMatchObject({
      content: [{ type: 'text', text: 'Echo: again' }],
    });
  });
});
