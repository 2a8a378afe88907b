/**
 * bench/mcp-result child: one fresh Node process that connects weft's MCP hub to the
 * bench echo server, settles, and makes one call whose result is `--bytes` long through
 * the `ToolExecutor` (validation, approval, output budget with the file artifact sink) —
 * what an agent turn or a tool stage does. It reports the RSS at idle (after GC) and the
 * peak RSS of the call (Linux `VmHWM`, reset just before the call), in bytes, as JSON.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/core/logger.js';
import { MCP_DEFAULTS, type McpServerConfig } from '../../src/mcp/config/server-config.js';
import { McpHub } from '../../src/mcp/hub/index.js';
import { ApprovalPolicy } from '../../src/tools/approval-policy.js';
import { fileArtifactSink } from '../../src/tools/artifact-sink.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { ToolExecutor } from '../../src/tools/tool-executor.js';
import { createFileReadTracker } from '../../src/tools/tool.js';

export interface ResultPhaseOutput {
  bytes: number;
  idleRss: number;
  peakRss: number;
  /** Bytes the artifact holds: the whole result, kept aside. */
  artifactBytes: number;
  shownBytes: number;
}

function argument(name: string): string {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? process.argv[index + 1] : undefined;
  if (value === undefined) throw new Error(`missing --${name}`);
  return value;
}

/** Peak resident set size since the last reset, in bytes. */
function peakRss(): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return Number(match?.[1]) * 1024;
}

async function settle(): Promise<void> {
  for (let round = 0; round < 3; round += 1) {
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const bytes = Number(argument('bytes'));
const dir = mkdtempSync(join(tmpdir(), 'weft-bench-result-'));
const config: McpServerConfig = {
  name: 'echo',
  type: 'stdio',
  command: [process.execPath, argument('echo')],
  env: {},
  envVars: [],
  headers: {},
  protocol: 'streamable_http',
  startupTimeoutMs: MCP_DEFAULTS.startupTimeoutMs,
  toolTimeoutMs: 120_000,
  maxToolTimeoutMs: 600_000,
  enabled: true,
  required: true,
  disabledTools: [],
  sampling: false,
  source: { kind: 'runtime', file: 'bench/mcp-result' },
};
const registry = new ToolRegistry();
const hub = new McpHub({ registry, workspaceRoot: dir, env: process.env, logger: silentLogger, clientVersion: 'bench', watchdog: false });
try {
  await hub.start([config]);
  const executor = new ToolExecutor({
    registry,
    policy: new ApprovalPolicy([]),
    approvalMode: { interactive: false, autoApprove: true },
    artifacts: fileArtifactSink(join(dir, 'artifacts')),
    logger: silentLogger,
  });
  const session = { workspaceRoot: dir, readFiles: createFileReadTracker(), signal: new AbortController().signal };
  // A small call first loads the executor's code paths (ajv, the budget), so idle includes them.
  await executor.execute({ id: 'warm', name: 'mcp__echo__payload', arguments: { bytes: 1024 } }, session);
  await settle();
  const idleRss = process.memoryUsage.rss();
  writeFileSync('/proc/self/clear_refs', '5');
  const outcome = await executor.execute({ id: 'big', name: 'mcp__echo__payload', arguments: { bytes } }, session);
  const peak = peakRss();
  const artifact = outcome.result.artifactPath;
  if (outcome.result.isError || artifact === undefined)
    throw new Error(`unexpected result: ${JSON.stringify(outcome.result).slice(0, 300)}`);
  const shownBytes = outcome.result.content.reduce((total, part) => total + (part.type === 'text' ? Buffer.byteLength(part.text) : 0), 0);
  const output: ResultPhaseOutput = { bytes, idleRss, peakRss: peak, artifactBytes: readFileSync(artifact).length, shownBytes };
  writeFileSync(argument('out'), JSON.stringify(output));
} finally {
  await hub.close();
  rmSync(dir, { recursive: true, force: true });
}
