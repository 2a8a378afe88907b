/**
 * bench/mcp-result: what one huge MCP tool result costs weft in memory (issue 12 item 11,
 * target: a 50 MB result under 150 MiB RSS over idle). A fresh child per measurement
 * (`phase.ts`, bundled with esbuild so no TypeScript loader sits in its RSS) calls the
 * bench echo server's `payload` tool through the hub and the `ToolExecutor`, whose output
 * budget keeps the whole result aside as an artifact; the child reports its idle RSS and
 * the peak RSS of the call. Writes `bench/results/mcp-result.{json,md}`.
 *
 *   node --import tsx bench/mcp-result/mcp-result.bench.ts [--quick]
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { describeOutcome, runNode } from '../lib/child-process.js';
import { MIB } from '../lib/measure.js';
import { BENCH_DIR, CACHE_DIR, REPO_ROOT } from '../lib/paths.js';
import { formatNumber, machineInfo, markdownTable, writeResults } from '../lib/report.js';
import { median } from '../lib/stats.js';
import type { ResultPhaseOutput } from './phase.js';

const NAME = 'mcp-result';
const ECHO_SERVER = resolve(BENCH_DIR, 'mcp-call/echo-server.mjs');
const BUILD_DIR = join(CACHE_DIR, NAME);
const TARGET_MIB_PER_50MB = 150;
const quick = process.argv.includes('--quick');
const SIZES = quick ? [5_000_000] : [50_000_000, 100_000_000];
const ROUNDS = quick ? 1 : 3;

async function bundle(): Promise<string> {
  rmSync(BUILD_DIR, { recursive: true, force: true });
  mkdirSync(BUILD_DIR, { recursive: true });
  await build({
    entryPoints: { phase: resolve(BENCH_DIR, 'mcp-result/phase.ts') },
    outdir: BUILD_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
    absWorkingDir: REPO_ROOT,
  });
  return join(BUILD_DIR, 'phase.mjs');
}

async function measureOnce(entry: string, bytes: number, round: number): Promise<ResultPhaseOutput> {
  const out = join(BUILD_DIR, `result-${bytes}-${round}.json`);
  const outcome = await runNode(['--expose-gc', entry, '--bytes', String(bytes), '--echo', ECHO_SERVER, '--out', out], {
    cwd: REPO_ROOT,
    timeoutMs: 300_000,
  });
  if (outcome.code !== 0) throw new Error(`result phase (${bytes} bytes) ${describeOutcome(outcome)}`);
  return JSON.parse(readFileSync(out, 'utf8')) as ResultPhaseOutput;
}

const loadBefore = loadavg()[0] ?? 0;
const entry = await bundle();
const rows: { bytes: number; runs: ResultPhaseOutput[]; overIdleMiB: number; perResultByte: number }[] = [];
for (const bytes of SIZES) {
  const runs: ResultPhaseOutput[] = [];
  for (let round = 0; round < ROUNDS; round += 1) runs.push(await measureOnce(entry, bytes, round));
  const overIdleMiB = median(runs.map((run) => (run.peakRss - run.idleRss) / MIB));
  rows.push({ bytes, runs, overIdleMiB, perResultByte: (overIdleMiB * MIB) / bytes });
}
const loadAfter = loadavg()[0] ?? 0;

const table = markdownTable({
  headers: [
    'result',
    'idle RSS MiB',
    'peak RSS MiB',
    'peak over idle MiB (median)',
    '× result size',
    'artifact bytes',
    'shown to the model',
  ],
  rows: rows.map((row) => [
    `${formatNumber(row.bytes / 1_000_000)} MB`,
    formatNumber(median(row.runs.map((run) => run.idleRss / MIB))),
    formatNumber(median(row.runs.map((run) => run.peakRss / MIB))),
    formatNumber(row.overIdleMiB),
    `${row.perResultByte.toFixed(2)}×`,
    formatNumber(row.runs[0]!.artifactBytes),
    `${formatNumber(row.runs[0]!.shownBytes / 1024, 1)} KiB`,
  ]),
});
const machine = machineInfo();
const markdown = [
  `# ${NAME}: memory for one huge MCP tool result`,
  '',
  `${machine.date} · Node ${machine.node} · ${machine.cpus} × ${machine.cpuModel} · load ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}${quick ? ' · --quick (numbers mean nothing)' : ''}`,
  '',
  `One call of the bench echo server's \`payload\` tool through \`McpHub\` + \`ToolExecutor\` (default 100 KiB output budget, file artifact sink), in a fresh child per round (${ROUNDS} rounds, median). Idle: RSS after connecting, one small call and GC. Peak: Linux \`VmHWM\`, reset just before the call. Target: under ${TARGET_MIB_PER_50MB} MiB over idle for 50 MB.`,
  '',
  table,
].join('\n');
const written = writeResults(NAME, { machine, loadBefore, loadAfter, quick, rows }, markdown);
console.log(markdown);
console.log(`\nwrote ${written.markdown}`);
