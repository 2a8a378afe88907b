/**
 * `type = "sandbox"` MCP servers in a run with `[run.sandbox] mode = "os"`: the server's
 * process runs inside the run's OS sandbox (bubblewrap) and listens in the sandbox's own
 * network namespace; weft reaches it through a Unix socket the sandbox exposes, over
 * Streamable HTTP and SSE. Its port is never open on the host, and its writes outside the
 * workspace are refused like any sandboxed process's.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bubblewrapProvider, resolveSandboxRules, type PreparedSandbox, type SandboxViolation } from '../src/core/sandbox/index.js';
import type { McpServerConfig } from '../src/mcp/config/server-config.js';
import type { McpHub } from '../src/mcp/hub/index.js';
import { portAccepts } from '../src/mcp/hub/sandbox-process.js';
import { EVERYTHING, createTestHub, freePort, pidAlive, serverConfig, toolContext } from './fixtures/servers/hub-kit.js';

let tmp: string;
let sandbox: PreparedSandbox;
let hub: McpHub | undefined;
const violations: SandboxViolation[] = [];

beforeEach(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'weft-hub-sandbox-os-'));
  mkdirSync(join(tmp, 'work'));
  const rules = resolveSandboxRules({ mode: 'os' }, { workspace: join(tmp, 'work'), storageDir: join(tmp, 'storage') })!;
  sandbox = await bubblewrapProvider().prepare(rules, { onViolation: (violation) => violations.push(violation) });
});

afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await sandbox.dispose();
  rmSync(tmp, { recursive: true, force: true });
});

function sandboxConfig(name: string, port: number, fields: Partial<McpServerConfig>): McpServerConfig {
  return serverConfig(name, { type: 'sandbox', port, protocol: 'streamable_http', cwd: join(tmp, 'work'), ...fields });
}

describe('type = "sandbox" MCP servers in an OS-sandboxed run', () => {
  it.each([
    ['streamable_http', 'streamableHttp'],
    ['sse', 'sse'],
  ] as const)('run inside the sandbox and answer over %s, their port never open on the host', async (protocol, mode) => {
    const port = await freePort();
    const kit = createTestHub({ workspaceRoot: join(tmp, 'work'), processSandbox: sandbox });
    hub = kit.hub;
    const [status] = await hub.start([sandboxConfig('inside', port, { protocol, command: [process.execPath, EVERYTHING, mode] })]);
    expect(status, JSON.stringify(status)).toMatchObject({ state: 'ready', type: 'sandbox' });
    const registry = kit.registry;
    expect(await registry.get('mcp__inside__echo')?.execute({ message: 'from inside' }, toolContext())).toMatchObject({
      content: [{ type: 'text', text: 'Echo: from inside' }],
    });
    // It listens in the sandbox's network namespace only.
    expect(await portAccepts(port, 1000)).toBe(false);
    const pid = status?.pid as number;
    await hub.close();
    hub = undefined;
    expect(pidAlive(pid)).toBe(false);
  });

  it('refuses its writes outside the workspace', async () => {
    const port = await freePort();
    const outside = join(tmp, 'outside.txt');
    hub = createTestHub({ workspaceRoot: join(tmp, 'work'), processSandbox: sandbox }).hub;
    const script = `echo pwned > ${outside} || echo refused >&2; exec ${process.execPath} ${EVERYTHING} streamableHttp`;
    const [status] = await hub.start([sandboxConfig('writer', port, { script })]);
    expect(status).toMatchObject({ state: 'ready' });
    expect(existsSync(outside)).toBe(false);
  });
});
