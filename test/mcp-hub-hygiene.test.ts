/**
 * Process hygiene of the MCP hub: a server that ignores stdin EOF and SIGTERM is still
 * ended by close(), children a server started go with it, and no server outlives a weft
 * process that is SIGKILLed (the watchdog reaps it).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpHub } from '../src/mcp/hub/index.js';
import {
  FIXTURE_SERVER,
  HUB_HOST,
  REPO_ROOT,
  createTestHub,
  fixtureConfig,
  pidAlive,
  serverConfig,
  waitFor,
} from './fixtures/servers/hub-kit.js';

describe('MCP hub process hygiene', () => {
  const hubs: McpHub[] = [];
  const pids: number[] = [];
  let tmp: string;

  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'weft-hub-hygiene-'));
  });

  afterEach(async () => {
    await Promise.all(hubs.splice(0).map((hub) => hub.close()));
    for (const pid of pids.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone, as it should be.
      }
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  it('close() ends a server that ignores stdin EOF and SIGTERM (SIGKILL after the grace period)', async () => {
    const { hub, records } = createTestHub({ shutdown: { eofGraceMs: 100, killGraceMs: 300 } });
    hubs.push(hub);
    await hub.start([fixtureConfig('stubborn', { FIXTURE_STUBBORN: '1' })]);
    const pid = hub.serverStatus('stubborn').pid ?? 0;
    expect(pidAlive(pid)).toBe(true);
    const started = Date.now();
    await hub.close();
    expect(pidAlive(pid)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    // It did see stdin close and SIGTERM, and ignored both.
    const stderr = records.filter((record) => record.message.startsWith('MCP [stubborn] stderr:')).map((record) => record.message);
    expect(stderr).toEqual(
      expect.arrayContaining(['MCP [stubborn] stderr: stdin closed, staying alive', 'MCP [stubborn] stderr: SIGTERM ignored']),
    );
  });

  it('ends the whole process group, including processes the server started', async () => {
    const { hub } = createTestHub({ shutdown: { eofGraceMs: 100, killGraceMs: 300 } });
    hubs.push(hub);
    const pidFile = join(tmp, 'pid');
    // The shell stays the group leader; the MCP server is its child (not exec'd: a command follows).
    const script = `"${process.execPath}" "${FIXTURE_SERVER}"; echo done >&2`;
    await hub.start([serverConfig('wrapped', { script, env: { FIXTURE_STUBBORN: '1', FIXTURE_PID_FILE: pidFile } })]);
    const shellPid = hub.serverStatus('wrapped').pid ?? 0;
    const serverPid = Number(readFileSync(pidFile, 'utf8'));
    expect(serverPid).not.toBe(shellPid);
    pids.push(serverPid);
    expect(await hub.callTool('wrapped', 'echo', { message: 'via sh' })).toMatchObject({
      content: [{ type: 'text', text: 'echo: via sh' }],
    });
    await hub.close();
    expect(pidAlive(shellPid)).toBe(false);
    expect(pidAlive(serverPid)).toBe(false);
  });

  it('no server outlives a weft process that is SIGKILLed', async () => {
    const host = spawn(process.execPath, ['--import', 'tsx', HUB_HOST], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    pids.push(host.pid ?? 0);
    let stderr = '';
    host.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = createInterface({ input: host.stdout });
    const first = await Promise.race([
      new Promise<string>((resolve) => lines.once('line', resolve)),
      new Promise<string>((_, reject) => setTimeout(() => reject(new Error(`the host did not report: ${stderr}`)), 20_000)),
    ]);
    const report = JSON.parse(first) as { state: string; serverPid: number; watchdogPid: number };
    pids.push(report.serverPid, report.watchdogPid);
    expect(report.state).toBe('ready');
    expect(pidAlive(report.serverPid)).toBe(true);
    expect(pidAlive(report.watchdogPid)).toBe(true);

    host.kill('SIGKILL');
    // The server ignores stdin EOF and SIGTERM: only the watchdog's SIGKILL (after 2 s) ends it.
    await waitFor('the server to be reaped', () => !pidAlive(report.serverPid), 15_000, 50);
    await waitFor('the watchdog to exit', () => !pidAlive(report.watchdogPid), 5000, 50);
  }, 40_000);
});
