/**
 * Cold import of the library entry points next to the CLI's cold start, each in a fresh
 * Node process (issue 15: importing the runtime costs no more than the CLI does). Rounds
 * alternate the cases so machine load drifts over all of them alike. Needs `npm run build`.
 *
 *   node --import tsx bench/run.ts import      (ROUNDS=<n> for more rounds; default 15)
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runNode } from '../lib/child-process.js';
import { REPO_ROOT } from '../lib/paths.js';
import { formatNumber, formatRatio, machineInfo, markdownTable, writeResults } from '../lib/report.js';
import { summarize } from '../lib/stats.js';

const DIST = join(REPO_ROOT, 'dist');
const ROUNDS = Number(process.env.ROUNDS ?? 15);

const importing = (entry: string) => [
  '--input-type=module',
  '-e',
  `await import(${JSON.stringify(pathToFileURL(join(DIST, entry)).href)})`,
];
const CASES: { name: string; args: string[] }[] = [
  { name: 'node boot (node -e 0)', args: ['-e', '0'] },
  { name: 'CLI: weft --version', args: [join(REPO_ROOT, 'bin/weft.js'), '--version'] },
  { name: "import 'weft-runtime'", args: importing('lib/index.js') },
  { name: "import 'weft-runtime/mcp'", args: importing('lib/mcp.js') },
  { name: "import 'weft-runtime/workflow'", args: importing('lib/workflow.js') },
  { name: "import 'weft-runtime/ai-sdk'", args: importing('lib/ai-sdk.js') },
  { name: "import 'weft-runtime/server'", args: importing('lib/server.js') },
];

if (!existsSync(join(DIST, 'lib/index.js'))) throw new Error('dist/lib/index.js is missing: run npm run build first');
const times = new Map<string, number[]>(CASES.map((entry) => [entry.name, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  for (const entry of CASES) {
    const outcome = await runNode(entry.args, { cwd: REPO_ROOT, timeoutMs: 60_000 });
    if (outcome.code !== 0) throw new Error(`${entry.name} exited with ${outcome.code}`);
    times.get(entry.name)!.push(outcome.wallMs);
  }
}
const cli = summarize(times.get('CLI: weft --version')!).p50;
const rows = CASES.map((entry) => {
  const summary = summarize(times.get(entry.name)!);
  return [entry.name, formatNumber(summary.p50), formatNumber(summary.p99), formatRatio(summary.p50, cli)];
});
const machine = machineInfo();
const table = markdownTable({ headers: ['process (fresh Node each)', 'median ms', 'p99 ms', '÷ CLI'], rows });
const markdown = `# Cold import (${ROUNDS} rounds, ${machine.node}, ${machine.cpus} CPUs, ${machine.date})\n\n${table}\n`;
console.log(markdown);
writeResults('import', { machine, rounds: ROUNDS, times: Object.fromEntries(times) }, markdown);
