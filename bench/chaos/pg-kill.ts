/**
 * Scenario 4's long run (`npm run chaos:pg-kill [-- --outage-s 30]`, not part of `npm test`;
 * needs root and iproute2): the PostgreSQL host killed for 30 s — link down, every postgres
 * process SIGKILLed — while runs are queued and running on two worker hosts, then started
 * again on the same data dir (test/fixtures/chaos/pg-kill-scenario.ts). Side by side: the
 * default lease (15 s, shorter than the outage: leases run out while the server is away)
 * and a lease longer than the outage. Results in bench/results/chaos-pg-kill.{json,md}.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS_DIR } from '../lib/paths.js';
import { pgKillScenario } from '../../test/fixtures/chaos/pg-kill-scenario.js';

const args = process.argv.slice(2);
const flag = args.indexOf('--outage-s');
const outageMs = 1000 * (flag >= 0 ? Number(args[flag + 1]) : 30);
if (!Number.isFinite(outageMs) || outageMs <= 0)
  throw new Error(`--outage-s must be a positive number of seconds (got '${args[flag + 1]}')`);

interface Row {
  leaseMs: number;
  runs: number;
  runningAtKill: number;
  queuedAtKill: number;
  succeeded: number;
  problems: string[];
  firstStartMs: Record<string, number | undefined>;
  allEndedMs: number;
  abandoned: number;
}

const rows: Row[] = [];
for (const leaseMs of [15_000, outageMs + 30_000]) {
  const result = await pgKillScenario({ outageMs, leaseMs, runs: 12, maxParallel: 2, settleMs: 300_000 });
  const statuses = Object.values(result.statuses);
  rows.push({
    leaseMs,
    runs: statuses.length,
    runningAtKill: result.runningAtKill,
    queuedAtKill: result.queuedAtKill,
    succeeded: statuses.filter((status) => status === 'succeeded').length,
    problems: result.problems,
    firstStartMs: result.firstStartMs,
    allEndedMs: result.allEndedMs,
    abandoned: result.abandoned,
  });
  console.log(JSON.stringify(rows.at(-1)));
}

const seconds = (ms: number | undefined) => (ms === undefined ? 'none' : `${(ms / 1000).toFixed(1)} s`);
const table = [
  `# Scenario 4: the PostgreSQL host killed for ${outageMs / 1000} s`,
  '',
  `\`npm run chaos:pg-kill -- --outage-s ${outageMs / 1000}\`, ${new Date().toISOString().slice(0, 10)}. Two worker hosts (\`weft worker --max-parallel 2\`), 12 runs of three 1 s command stages; the host's link goes down and every postgres process is SIGKILLed once all four slots run a stage, then link up and the server started on the same data dir. Times are from the server answering again.`,
  '',
  '| lease | running / queued at the kill | succeeded | log problems | first stage started by w1 / w2 | all runs ended | attempts taken over |',
  '|--:|:--|--:|--:|:--|--:|--:|',
  ...rows.map(
    (row) =>
      `| ${row.leaseMs / 1000} s | ${row.runningAtKill} / ${row.queuedAtKill} | ${row.succeeded} of ${row.runs} | ${row.problems.length} | ${seconds(row.firstStartMs.w1)} / ${seconds(row.firstStartMs.w2)} | ${seconds(row.allEndedMs)} | ${row.abandoned} |`,
  ),
  '',
];
writeFileSync(join(RESULTS_DIR, 'chaos-pg-kill.json'), `${JSON.stringify({ outageMs, rows }, null, 2)}\n`);
writeFileSync(join(RESULTS_DIR, 'chaos-pg-kill.md'), table.join('\n'));
console.log(table.join('\n'));
if (rows.some((row) => row.problems.length > 0 || row.succeeded !== row.runs)) process.exitCode = 1;
