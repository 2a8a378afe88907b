/**
 * What the `os` sandbox (bubblewrap) adds per process start (issue 24; target < 50 ms),
 * side by side in alternating rounds so drift on the machine hits both alike:
 *
 * - **command stage**: `runCommand` as a `command` stage calls it (process group, gate
 *   waiting for the group to be recorded), running `true`, bare vs inside the run's sandbox;
 * - **shell call**: the built-in `shell` tool's `execute` running `true`, bare vs sandboxed;
 * - **shell call, proxy wired**: the same with `network.allow` set (socat started inside
 *   and waited for).
 *
 * Writes `bench/results/sandbox.json` and `.md`.
 *
 *   node --import tsx bench/run.ts sandbox        (BENCH_SANDBOX_ROUNDS=10 for a quick pass)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/core/logger.js';
import { bubblewrapProvider, resolveSandboxRules, type PreparedSandbox } from '../../src/core/sandbox/index.js';
import { createFileReadTracker } from '../../src/tools/tool.js';
import { runCommand } from '../../src/tools/builtin/run-command.js';
import { createShellTool } from '../../src/tools/builtin/shell.js';
import { now } from '../lib/measure.js';
import { formatNumber, machineInfo, markdownTable, writeResults } from '../lib/report.js';
import { summarize, type Summary } from '../lib/stats.js';

const ROUNDS = Number(process.env.BENCH_SANDBOX_ROUNDS ?? (process.argv.includes('--quick') ? 10 : 60));

async function commandStage(workspace: string, sandbox: PreparedSandbox | undefined): Promise<number> {
  const start = now();
  const outcome = await runCommand('true', {
    cwd: workspace,
    timeoutMs: 30_000,
    signal: new AbortController().signal,
    maxCaptureBytes: 1024 * 1024,
    killGraceMs: 1000,
    beforeStart: async () => undefined,
    ...(sandbox ? { sandbox } : {}),
  });
  if (outcome.exitCode !== 0) throw new Error(`command failed: ${outcome.stderr}`);
  return now() - start;
}

async function shellCall(workspace: string, sandbox: PreparedSandbox | undefined): Promise<number> {
  const tool = createShellTool();
  const start = now();
  const result = await tool.execute(
    { command: 'true' },
    {
      workspaceRoot: workspace,
      signal: new AbortController().signal,
      readFiles: createFileReadTracker(),
      logger: silentLogger,
      ...(sandbox ? { sandbox } : {}),
    },
  );
  if (result.isError === true) throw new Error(`shell failed: ${JSON.stringify(result.content)}`);
  return now() - start;
}

async function main(): Promise<void> {
  const workspace = mkdtempSync(join(tmpdir(), 'weft-bench-sandbox-'));
  const storageDir = mkdtempSync(join(tmpdir(), 'weft-bench-sandbox-storage-'));
  const provider = bubblewrapProvider();
  const closed = await provider.prepare(resolveSandboxRules({ mode: 'os' }, { workspace, storageDir })!, { onViolation: () => undefined });
  const proxied = await provider.prepare(
    resolveSandboxRules({ mode: 'os', network: { allow: ['example.com'] } }, { workspace, storageDir })!,
    { onViolation: () => undefined },
  );
  const series: Record<string, number[]> = {
    'command bare': [],
    'command sandboxed': [],
    'shell bare': [],
    'shell sandboxed': [],
    'shell sandboxed, proxy wired': [],
  };
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      series['command bare']!.push(await commandStage(workspace, undefined));
      series['command sandboxed']!.push(await commandStage(workspace, closed));
      series['shell bare']!.push(await shellCall(workspace, undefined));
      series['shell sandboxed']!.push(await shellCall(workspace, closed));
      series['shell sandboxed, proxy wired']!.push(await shellCall(workspace, proxied));
    }
  } finally {
    await closed.dispose();
    await proxied.dispose();
    rmSync(workspace, { recursive: true, force: true });
    rmSync(storageDir, { recursive: true, force: true });
  }
  const summaries: Record<string, Summary> = Object.fromEntries(Object.entries(series).map(([name, values]) => [name, summarize(values)]));
  const added = (sandboxed: string, bare: string) => ({
    p50: summaries[sandboxed]!.p50 - summaries[bare]!.p50,
    p99: summaries[sandboxed]!.p99 - summaries[bare]!.p99,
  });
  const rows = Object.entries(summaries).map(([name, summary]) => [
    name,
    formatNumber(summary.p50, 1),
    formatNumber(summary.p99, 1),
    formatNumber(summary.mean, 1),
  ]);
  const addedRows = [
    ['command stage', added('command sandboxed', 'command bare')],
    ['shell call', added('shell sandboxed', 'shell bare')],
    ['shell call, proxy wired', added('shell sandboxed, proxy wired', 'shell bare')],
  ] as const;
  const markdown = [
    `# Sandbox: added ms per process start (${ROUNDS} rounds, load ${loadavg()[0]!.toFixed(1)})`,
    '',
    markdownTable({ headers: ['series', 'p50 ms', 'p99 ms', 'mean ms'], rows }),
    '',
    markdownTable({
      headers: ['added by the sandbox', 'p50 ms', 'p99 ms'],
      rows: addedRows.map(([name, delta]) => [name, formatNumber(delta.p50, 1), formatNumber(delta.p99, 1)]),
    }),
    '',
    'Target: under 50 ms added per process start.',
  ].join('\n');
  const written = writeResults(
    'sandbox',
    { machine: machineInfo(), rounds: ROUNDS, loadAverage: loadavg()[0], summaries, added: Object.fromEntries(addedRows) },
    markdown,
  );
  console.log(markdown);
  console.log(`\nwrote ${written.json} and ${written.markdown}`);
}

await main();
