/**
 * The protocol fuzzer's long run (`npm run fuzz -- --minutes N [--seed S]`, not part of
 * `npm test`): the targets of test/protocol-fuzz.test.ts — `weft mcp start` over stdio and
 * Streamable HTTP in both protocol eras, and `weft serve`'s HTTP API — each for an equal
 * share of the time, 10 MB frames included, with the same invariants after every case.
 * Writes the counts per target and case kind to bench/results/fuzz-protocol.{json,md};
 * exits 1 when any invariant broke (the findings are in the table and on stderr).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fuzzApi } from '../../test/fuzz/api-fuzz.js';
import { fuzzTarget, type FuzzReport } from '../../test/fuzz/fuzz-runner.js';
import { HttpTarget } from '../../test/fuzz/http-target.js';
import type { Era } from '../../test/fuzz/jsonrpc-corpus.js';
import { Rng } from '../../test/fuzz/rng.js';
import { StdioTarget } from '../../test/fuzz/stdio-target.js';
import { startHttp } from '../../test/helpers/mcp-server-kit.js';
import { startServe } from '../../test/helpers/serve-kit.js';
import { RESULTS_DIR } from '../lib/paths.js';

function flag(argv: readonly string[], name: string, fallback: number): number {
  const at = argv.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = Number(argv[at + 1]);
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} needs a number, got '${argv[at + 1] ?? ''}'.`);
  return value;
}

function workspace(): { dir: string; storageDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'weft-fuzz-long-'));
  const storageDir = join(dir, '.home');
  mkdirSync(storageDir);
  return { dir, storageDir };
}

async function mcpTarget(kind: 'stdio' | 'http', era: Era, seed: number, until: number): Promise<FuzzReport> {
  const { dir, storageDir } = workspace();
  try {
    if (kind === 'stdio') {
      const target = await StdioTarget.start(era, dir, storageDir);
      try {
        return await fuzzTarget(target, { seed, era, storageDir, until, big: true });
      } finally {
        await target.close();
      }
    }
    const server = await startHttp({ dir, storageDir, remove: () => undefined });
    try {
      const target = new HttpTarget(era, server.url, server.token, server.child.pid!, new Rng(seed + 1), () => server.stderr());
      await target.open();
      return await fuzzTarget(target, { seed, era, storageDir, until, big: true });
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function apiTarget(seed: number, until: number): Promise<FuzzReport> {
  const serve = await startServe();
  try {
    return await fuzzApi({
      baseUrl: serve.url,
      token: serve.token,
      pid: serve.child.pid!,
      storageDir: serve.storageDir,
      rng: new Rng(seed),
      seed,
      until,
      big: true,
    });
  } finally {
    await serve.stop();
  }
}

function markdown(reports: readonly FuzzReport[], minutes: number, seed: number, load: [number, number]): string {
  const lines = [
    '# Protocol fuzzer: long run',
    '',
    `\`npm run fuzz -- --minutes ${minutes} --seed ${seed}\` — ${new Date().toISOString()}, load average ${load[0].toFixed(2)} before, ${load[1].toFixed(2)} after.`,
    'Invariants after every case: the server answers a follow-up probe, every request it must answer is answered (an HTTP API request never with a 5xx),',
    'a case without a successful answer leaves the store unchanged, the server process stays under the RSS bound.',
    '',
    '| target | cases | findings | max RSS (MB) |',
    '|---|---:|---:|---:|',
    ...reports.map(
      (report) => `| ${report.target} | ${report.cases} | ${report.findings.length} | ${(report.maxRssBytes / 1048576).toFixed(0)} |`,
    ),
    '',
  ];
  for (const report of reports) {
    lines.push(`## ${report.target}`, '', '| case kind | cases | answers | error answers |', '|---|---:|---:|---:|');
    for (const [kind, tally] of Object.entries(report.byKind).sort((a, b) => a[0].localeCompare(b[0])))
      lines.push(`| ${kind} | ${tally.cases} | ${tally.answered} | ${tally.errors} |`);
    lines.push('');
    for (const finding of report.findings.slice(0, 20))
      lines.push(`- case ${finding.index} (${finding.kind}): ${finding.problem} — \`${finding.sample.replace(/`/g, "'").slice(0, 160)}\``);
    if (report.findings.length > 0) lines.push('');
  }
  return lines.join('\n');
}

async function main(argv: readonly string[]): Promise<number> {
  const minutes = flag(argv, 'minutes', 1);
  const seed = flag(argv, 'seed', Date.now() % 0xffffffff);
  const share = (minutes * 60_000) / 5;
  const load0 = loadavg()[0]!;
  const reports: FuzzReport[] = [];
  const eras: Era[] = ['legacy', 'modern'];
  for (const era of eras) reports.push(await mcpTarget('stdio', era, seed, Date.now() + share));
  for (const era of eras) reports.push(await mcpTarget('http', era, seed, Date.now() + share));
  reports.push(await apiTarget(seed, Date.now() + share));
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'fuzz-protocol.json'), `${JSON.stringify({ minutes, seed, reports }, null, 2)}\n`);
  writeFileSync(join(RESULTS_DIR, 'fuzz-protocol.md'), `${markdown(reports, minutes, seed, [load0, loadavg()[0]!])}\n`);
  const findings = reports.flatMap((report) => report.findings);
  for (const report of reports)
    console.log(
      `${report.target}: ${report.cases} cases, ${report.findings.length} findings, max RSS ${(report.maxRssBytes / 1048576).toFixed(0)} MB`,
    );
  for (const finding of findings) console.error(`${finding.target} case ${finding.index} (${finding.kind}): ${finding.problem}`);
  console.log(`seed ${seed}; results in bench/results/fuzz-protocol.md`);
  return findings.length === 0 ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
