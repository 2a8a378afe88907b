/**
 * The benchmark runner (`npm run bench`): finds every `bench/<name>/*.bench.ts`, runs
 * each in its own Node child process (one after another, so they never compete for the
 * CPU), and prints a summary. Each benchmark writes its own `bench/results/<name>.*`.
 *
 *   node --import tsx bench/run.ts              every benchmark
 *   node --import tsx bench/run.ts mcp-call     only bench/mcp-call/ (several names allowed)
 *   node --import tsx bench/run.ts --list       what would run
 *
 * Any other `--flag` is passed on to the benchmarks (e.g. `--profile` for mcp-call).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describeOutcome, runNode, type ChildOutcome } from './lib/child-process.js';
import { BENCH_DIR, REPO_ROOT, RESULTS_DIR } from './lib/paths.js';

interface BenchFile {
  /** The folder's name, e.g. `mcp-call`; also what its results are named after. */
  name: string;
  path: string;
}

// Folders that hold shared code or output, never benchmarks.
const NOT_BENCHMARKS = new Set(['lib', 'results', 'node_modules']);

function discover(): BenchFile[] {
  const found: BenchFile[] = [];
  for (const folder of readdirSync(BENCH_DIR).sort()) {
    const dir = join(BENCH_DIR, folder);
    if (NOT_BENCHMARKS.has(folder) || folder.startsWith('.') || !statSync(dir).isDirectory()) continue;
    for (const file of readdirSync(dir).sort()) {
      if (file.endsWith('.bench.ts')) found.push({ name: folder, path: join(dir, file) });
    }
  }
  return found;
}

function select(all: BenchFile[], wanted: readonly string[]): BenchFile[] {
  if (wanted.length === 0) return all;
  const unknown = wanted.filter((name) => !all.some((bench) => bench.name === name || basename(bench.path, '.bench.ts') === name));
  if (unknown.length > 0) {
    const known = [...new Set(all.map((bench) => bench.name))].join(', ') || 'none';
    throw new Error(`No benchmark named ${unknown.map((name) => `'${name}'`).join(', ')}. Known: ${known}.`);
  }
  return all.filter((bench) => wanted.includes(bench.name) || wanted.includes(basename(bench.path, '.bench.ts')));
}

async function main(argv: readonly string[]): Promise<number> {
  const flags = argv.filter((arg) => arg.startsWith('--'));
  const names = argv.filter((arg) => !arg.startsWith('--'));
  const benches = select(discover(), names);
  if (flags.includes('--list')) {
    for (const bench of benches) console.log(`${bench.name}\t${relative(REPO_ROOT, bench.path)}`);
    return 0;
  }
  if (benches.length === 0) {
    console.error('No benchmarks found (looked for bench/<name>/*.bench.ts).');
    return 1;
  }
  const passOn = flags.filter((flag) => flag !== '--list');
  const outcomes: { bench: BenchFile; outcome: ChildOutcome }[] = [];
  for (const bench of benches) {
    console.log(`\n=== ${bench.name} (${relative(REPO_ROOT, bench.path)}) ===`);
    const outcome = await runNode(['--import', 'tsx', bench.path, ...passOn], { cwd: REPO_ROOT });
    outcomes.push({ bench, outcome });
  }
  console.log('\n=== summary ===');
  for (const { bench, outcome } of outcomes) {
    const markdown = join(RESULTS_DIR, `${bench.name}.md`);
    const where = existsSync(markdown) ? ` → ${relative(REPO_ROOT, markdown)}` : '';
    console.log(
      `${bench.name.padEnd(12)} ${describeOutcome(outcome).padEnd(22)} ${(outcome.wallMs / 1000).toFixed(1).padStart(6)} s${where}`,
    );
  }
  return outcomes.every(({ outcome }) => outcome.code === 0) ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  },
);
