/**
 * MCP hub lifecycle against real processes: parallel startup, servers that fail to start
 * (timeout, exit, missing command) with actionable reports, required servers, a crash
 * mid-call followed by reconnection, garbage on stdout, and close() during a start.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WeftError } from '../src/core/errors.js';
import type { McpHub } from '../src/mcp/hub/index.js';
import {
  PAGED_SERVER,
  createTestHub,
  fixtureConfig,
  logged,
  pidAlive,
  serverConfig,
  toolContext,
  waitFor,
  type TestHub,
} from './fixtures/servers/hub-kit.js';

describe('MCP hub lifecycle', () => {
  const hubs: McpHub[] = [];
  let tmp: string;

  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'weft-hub-life-'));
  });

  afterEach(async () => {
    await Promise.all(hubs.splice(0).map((hub) => hub.close()));
    rmSync(tmp, { recursive: true, force: true });
  });

  function testHub(options: Parameters<typeof createTestHub>[0] = {}): TestHub {
    const kit = createTestHub(options);
    hubs.push(kit.hub);
    return kit;
  }

  it('starts servers in parallel: every slow handshake began before any of them ended', async () => {
    const { hub } = testHub();
    const slow = { FIXTURE_HANDSHAKE_DELAY_MS: '300' };
    const statuses = await hub.start([fixtureConfig('a', slow), fixtureConfig('b', slow), fixtureConfig('c', slow)]);
    expect(statuses.map((status) => status.state)).toEqual(['ready', 'ready', 'ready']);
    const began = statuses.map((status) => Date.parse(status.timings.startedAt!));
    const ended = statuses.map((status, index) => began[index]! + (status.timings.connectMs ?? 0));
    expect(Math.min(...statuses.map((status) => status.timings.connectMs ?? 0))).toBeGreaterThanOrEqual(300);
    expect(Math.max(...began)).toBeLessThan(Math.min(...ended));
  });

  it('follows nextCursor through every page of tools/list', async () => {
    const { hub, registry } = testHub();
    await hub.start([serverConfig('paged', { command: [process.execPath, PAGED_SERVER] })]);
    expect(registry.list().map((tool) => tool.name)).toEqual(Array.from({ length: 7 }, (_, index) => `mcp__paged__tool_${index + 1}`));
    expect(await hub.callTool('paged', 'tool_7', {})).toMatchObject({ content: [{ type: 'text', text: 'I am tool_7' }] });
  });

  it('reports servers that fail to start, with a hint and stderr, and starts the others', async () => {
    const { hub, records } = testHub();
    const silentPid = join(tmp, 'silent.pid');
    const statuses = await hub.start([
      fixtureConfig('good'),
      fixtureConfig('silent', { FIXTURE_NO_HANDSHAKE: '1', FIXTURE_PID_FILE: silentPid }, { startupTimeoutMs: 1500 }),
      fixtureConfig('exits', { FIXTURE_EXIT_AT_START: '2' }),
      serverConfig('no-node', { command: ['npx', '-y', 'some-server'], env: { PATH: join(tmp, 'empty-path') } }),
      serverConfig('no-command', { command: ['weft-test-no-such-command'] }),
      serverConfig('sandboxed', { type: 'sandbox', command: ['weft-test-no-such-command'], port: 1 }),
      fixtureConfig('off', {}, { enabled: false }),
    ]);
    const byName = new Map(statuses.map((status) => [status.name, status]));
    expect([...byName.keys()]).toEqual(['good', 'silent', 'exits', 'no-node', 'no-command', 'sandboxed']);
    expect(byName.get('good')?.state).toBe('ready');

    expect(byName.get('silent')).toMatchObject({
      state: 'failed',
      error: expect.stringMatching(/^timed out after 1\.5s — raise startup_timeout/),
      stderrTail: ['listening, but never answering'],
    });
    // The server that never answered was not left running.
    expect(pidAlive(Number(readFileSync(silentPid, 'utf8')))).toBe(false);

    expect(byName.get('exits')).toMatchObject({
      state: 'failed',
      error: 'the server exited with code 2 during startup — see its stderr below',
      stderrTail: ['fatal: cannot open the database'],
    });
    expect(byName.get('no-node')?.error).toBe('command not found: npx — is Node.js on PATH?');
    expect(byName.get('no-command')?.error).toBe('command not found: weft-test-no-such-command — is it installed and on PATH?');
    expect(byName.get('sandboxed')?.error).toBe('command not found: weft-test-no-such-command — is it installed and on PATH?');

    const warning = logged(records, /^MCP server 'exits' failed to start: /);
    expect(warning?.level).toBe('warn');
    expect(warning?.message).toContain('fatal: cannot open the database');
    expect(await hub.callTool('good', 'echo', { message: 'ok' })).toMatchObject({ content: [{ type: 'text', text: 'echo: ok' }] });
  });

  it('rejects start() with MCP_SERVER_FAILED naming a required server that failed', async () => {
    const { hub } = testHub();
    const failure = await hub
      .start([fixtureConfig('fine'), fixtureConfig('vital', { FIXTURE_EXIT_AT_START: '4' }, { required: true })])
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(WeftError.is(failure, 'MCP_SERVER_FAILED')).toBe(true);
    expect((failure as WeftError).message).toMatch(/^Required MCP server failed to start: 'vital': the server exited with code 4/);
    expect((failure as WeftError).data).toEqual({ servers: ['vital'] });
    expect(hub.serverStatus('fine').state).toBe('ready');
  });

  it('survives a crash mid-call: the call fails at once, calls fail fast while offline, then it reconnects', async () => {
    const { hub, registry, records } = testHub({ backoff: { initialMs: 400, factor: 1.5, maxMs: 1000, jitter: 0 } });
    await hub.start([fixtureConfig('fx')]);
    const firstPid = hub.serverStatus('fx').pid;

    await expect(registry.get('mcp__fx__crash')?.execute({}, toolContext())).rejects.toMatchObject({
      code: 'MCP_SERVER_UNAVAILABLE',
      message: "[fx] tool 'crash' failed: the server exited with code 3 — reconnecting",
    });
    expect(hub.serverStatus('fx')).toMatchObject({ state: 'offline', error: expect.stringContaining('the server exited with code 3') });
    expect(registry.get('mcp__fx__echo')).toBeDefined();

    await expect(registry.get('mcp__fx__echo')?.execute({ message: 'x' }, toolContext())).rejects.toMatchObject({
      code: 'MCP_SERVER_UNAVAILABLE',
      message: '[fx] is offline — reconnecting',
    });
    // It failed at once, not after waiting for the reconnect: the server is not back yet.
    expect(hub.serverStatus('fx').state).not.toBe('ready');

    await waitFor('the reconnect', () => hub.serverStatus('fx').state === 'ready');
    expect(await registry.get('mcp__fx__echo')?.execute({ message: 'back' }, toolContext())).toMatchObject({
      content: [{ type: 'text', text: 'echo: back' }],
    });
    const status = hub.serverStatus('fx');
    expect(status.reconnects).toBe(1);
    expect(status.pid).not.toBe(firstPid);
    expect(firstPid !== undefined && pidAlive(firstPid)).toBe(false);
    expect(logged(records, /^MCP \[fx\] reconnected \(\d+ tools\)$/)).toBeDefined();
  });

  it('skips garbage lines on stdout and keeps the connection', async () => {
    const { hub, records } = testHub();
    await hub.start([fixtureConfig('noisy', { FIXTURE_GARBAGE: '1' })]);
    expect(hub.serverStatus('noisy').state).toBe('ready');
    for (const message of ['one', 'two', 'three']) {
      expect(await hub.callTool('noisy', 'echo', { message })).toMatchObject({ content: [{ type: 'text', text: `echo: ${message}` }] });
    }
    expect(logged(records, /^MCP \[noisy\] stdout: skipped a line that is not JSON-RPC: garbage line in echo/)).toBeDefined();
    expect(logged(records, /skipped a line that is not JSON-RPC: \{"hello":"valid JSON but not JSON-RPC"\}/)).toBeDefined();
    expect(hub.serverStatus('noisy')).toMatchObject({ state: 'ready', reconnects: 0 });
  });

  it('reads the time of connection states and timings from the injected clock', async () => {
    let now = Date.parse('2030-01-02T03:04:05.000Z');
    const { hub } = testHub({ clock: () => now });
    await hub.start([fixtureConfig('timed')]);
    now += 60_000;
    expect(hub.serverStatus('timed')).toMatchObject({
      state: 'ready',
      timings: { startedAt: '2030-01-02T03:04:05.000Z', connectMs: 0, stateSince: '2030-01-02T03:04:05.000Z' },
    });
  });

  it('close() during a start ends the attempt and its process; the late result is discarded', async () => {
    const { hub } = testHub();
    const pidFile = join(tmp, 'pid');
    const starting = hub.start([
      fixtureConfig('slowpoke', { FIXTURE_NO_HANDSHAKE: '1', FIXTURE_PID_FILE: pidFile }, { startupTimeoutMs: 20_000 }),
    ]);
    await waitFor('the server process', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').length > 0);
    expect(hub.serverStatus('slowpoke')).toMatchObject({ state: 'connecting', pid: Number(readFileSync(pidFile, 'utf8')) });
    await hub.close();
    await starting;
    expect(pidAlive(Number(readFileSync(pidFile, 'utf8')))).toBe(false);
    expect(hub.status()).toEqual([]);
  });

  it('removes a server and its tools at run time', async () => {
    const { hub, registry } = testHub();
    await hub.start([fixtureConfig('one'), fixtureConfig('two')]);
    const pid = hub.serverStatus('two').pid;
    await hub.removeServer('two');
    expect(registry.list().some((tool) => tool.server === 'two')).toBe(false);
    expect(registry.get('mcp__one__echo')).toBeDefined();
    expect(pid !== undefined && pidAlive(pid)).toBe(false);
    await expect(hub.addServer(fixtureConfig('one'))).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });
});
