/**
 * The overhead weft adds around a CLI agent stage (issue 18), for each CLI (Claude Code,
 * Codex, Gemini CLI) side by side with the same CLI run bare, against the fake model
 * server (one answer, no tools), in alternating rounds so drift on the machine hits both
 * alike, every CLI in the same run:
 *
 * - **bare**: the CLI spawned directly with its own temp config (`bare-commands.ts`);
 *   spawn → first stdout line, last stdout line → exit.
 * - **weft**: a one-stage workflow run by the engine (in-process worker, memory store) with
 *   the CLI backend; stage started → first transcript event (`agent-started`, written when
 *   the CLI's first line naming its session arrives), last transcript event → stage
 *   finished, and the whole stage. weft's part includes finding the binary, starting the
 *   run-tools MCP server, writing the CLI's config, recording the process group before the
 *   CLI runs, the CLI connecting to the run-tools server, and ending the group and the
 *   marked processes.
 *
 * Writes `bench/results/cli-stage.json` and `.md`.
 *
 *   node --import tsx bench/run.ts cli-stage      (BENCH_CLI_ROUNDS=3 for a quick pass; BENCH_CLIS=codex,gemini for some)
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { CliStageRunner, cliAdapters, ModelStageRunner } from '../../src/agent/index.js';
import { newId } from '../../src/core/ids.js';
import { silentLogger } from '../../src/core/logger.js';
import { RunService } from '../../src/app/services/run-service.js';
import { Worker } from '../../src/runs/engine/worker.js';
import { MemoryRunStore } from '../../src/runs/store/memory/memory-run-store.js';
import type { RunToolboxFactory } from '../../src/runs/engine/stage-context.js';
import { startModelServer } from '../../test/fixtures/model-server/model-server.js';
import { now } from '../lib/measure.js';
import { formatNumber, formatRatio, machineInfo, markdownTable, writeResults } from '../lib/report.js';
import { summarize, type Summary } from '../lib/stats.js';
import { BENCH_CLIS, PROMPT, type BenchCli } from './bare-commands.js';

const ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? (process.argv.includes('--quick') ? 2 : 8));
const WANTED = process.env.BENCH_CLIS?.split(',').map((name) => name.trim());

interface Sample {
  toFirstMs: number;
  afterLastMs: number;
  totalMs: number;
}

async function bare(test: BenchCli, binary: string, env: Record<string, string>): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-cli-bare-'));
  try {
    const command = test.bare(dir, env);
    for (const file of command.files) {
      mkdirSync(dirname(file.path), { recursive: true });
      writeFileSync(file.path, file.text, { mode: 0o600 });
    }
    const started = now();
    const child = spawn(binary, command.args, { cwd: dir, env: { ...env, ...command.env }, stdio: ['pipe', 'pipe', 'ignore'] });
    child.stdin.end(command.stdin ?? '');
    let first: number | undefined;
    let last = started;
    for await (const line of createInterface({ input: child.stdout })) {
      if (line.trim() === '') continue;
      first ??= now();
      last = now();
    }
    const exited = child.exitCode !== null ? now() : await new Promise<number>((resolve) => child.once('exit', () => resolve(now())));
    if (child.exitCode !== 0) throw new Error(`bare ${test.displayName} exited with ${child.exitCode}`);
    return { toFirstMs: (first ?? last) - started, afterLastMs: exited - last, totalMs: exited - started };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function viaWeft(test: BenchCli, binary: string, env: Record<string, string>): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-cli-weft-'));
  const store = new MemoryRunStore();
  try {
    const service = new RunService({ store, clock: Date.now, wakeRunners: () => {} });
    const cli = new CliStageRunner({
      adapters: cliAdapters,
      settings: async () => ({ cli: { [test.cli]: { path: binary } }, approvalRules: [] }),
      mcpServers: async () => [],
      stateDir: join(dir, '.cli'),
      env,
      logger: silentLogger,
    });
    const agent = new ModelStageRunner({ llmSettings: async () => ({ aliases: {}, providers: {} }), env, logger: silentLogger, cli });
    const toolboxFactory: RunToolboxFactory = async () => {
      throw new Error('a CLI stage needs no toolbox');
    };
    const workflow = join(dir, 'wf.toml');
    writeFileSync(
      workflow,
      `[workflow]\nname = "bench"\nstart = "code"\n[nodes.code]\nkind = "agent"\nbackend = "cli"\ncli = "${test.cli}"\nmodel = "${test.model}"\nmax_turns = 5\nprompt = "${PROMPT}"\n`,
    );
    const run = await service.create({ workflow, cwd: dir, autoApprove: true });
    await new Worker({
      store,
      workerId: `bench-${newId()}`,
      logger: silentLogger,
      clock: Date.now,
      newId,
      toolboxFactory,
      agent,
      leaseMs: 30_000,
      heartbeatMs: 10_000,
      maxParallel: 1,
      pollMs: 20,
      idleExitMs: 0,
    }).run(new AbortController().signal);
    const events = await store.listEvents(run.id, { limit: 1000 });
    const at = (type: string) => events.filter((event) => event.type === type).map((event) => event.at);
    const [stageStarted] = at('stage-started');
    const [stageFinished] = at('stage-finished');
    const transcript = events.filter((event) =>
      ['agent-started', 'model-turn-finished', 'tool-call-started', 'tool-call-finished'].includes(event.type),
    );
    const finished = events.find((event) => event.type === 'stage-finished');
    if (stageStarted === undefined || stageFinished === undefined || transcript.length === 0 || finished?.payload.status !== 'succeeded')
      throw new Error(`the CLI stage did not succeed: ${JSON.stringify(finished?.payload)}`);
    return {
      toFirstMs: transcript[0]!.at - stageStarted,
      afterLastMs: stageFinished - transcript.at(-1)!.at,
      totalMs: stageFinished - stageStarted,
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

type Side = 'bare' | 'weft';

async function measure(test: BenchCli, binary: string, env: Record<string, string>): Promise<Record<Side, Sample[]>> {
  const samples: Record<Side, Sample[]> = { bare: [], weft: [] };
  await bare(test, binary, env); // warm the binary's pages
  for (let round = 0; round < ROUNDS; round += 1) {
    // Alternate which goes first, so neither always runs on a warmer machine.
    const order = round % 2 === 0 ? (['bare', 'weft'] as const) : (['weft', 'bare'] as const);
    for (const side of order) samples[side].push(side === 'bare' ? await bare(test, binary, env) : await viaWeft(test, binary, env));
  }
  return samples;
}

function rows(displayName: string, samples: Record<Side, Sample[]>): string[][] {
  const summary = (side: Side, key: keyof Sample): Summary => summarize(samples[side].map((sample) => sample[key]));
  return (['toFirstMs', 'afterLastMs', 'totalMs'] as const).map((key) => {
    const [b, w] = [summary('bare', key), summary('weft', key)];
    const label = { toFirstMs: 'spawn → first event (ms)', afterLastMs: 'last event → finished (ms)', totalMs: 'whole stage (ms)' }[key];
    return [
      displayName,
      label,
      formatNumber(b.p50, 1),
      formatNumber(w.p50, 1),
      formatNumber(w.p50 - b.p50, 1),
      formatRatio(w.p50, b.p50),
      formatNumber(b.max, 1),
      formatNumber(w.max, 1),
    ];
  });
}

async function main(): Promise<void> {
  const clis = BENCH_CLIS.filter((test) => WANTED === undefined || WANTED.includes(test.cli));
  const missing = clis.filter((test) => test.binary === undefined).map((test) => test.displayName);
  if (missing.length > 0) throw new Error(`not installed (npm ci): ${missing.join(', ')}`);
  const server = await startModelServer({ script: () => ({ text: 'hi' }) });
  const loadBefore = loadavg();
  const results: Record<string, Record<Side, Sample[]>> = {};
  try {
    for (const test of clis)
      results[test.cli] = await measure(test, test.binary!, { PATH: process.env.PATH ?? '/usr/bin:/bin', ...test.env(server.url) });
  } finally {
    await server.close();
  }
  const loadAfter = loadavg();
  const machine = machineInfo();
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
  const markdown = [
    '# cli-stage: weft around a CLI stage vs the same CLI bare',
    '',
    `${machine.date} · ${machine.platform} · ${machine.cpus} CPUs (${machine.cpuModel}) · Node ${machine.node} · load average before ${load(loadBefore)}, after ${load(loadAfter)} · ${ROUNDS} rounds per CLI, alternating`,
    '',
    markdownTable({
      headers: ['CLI', '', 'bare p50', 'weft p50', 'weft − bare', 'ratio', 'bare max', 'weft max'],
      rows: clis.flatMap((test) => rows(test.displayName, results[test.cli]!)),
    }),
    '',
    "Claude Code, Codex and Gemini CLI (the installed packages) against the fake model server (one text answer). bare: spawn → first stdout line, last line → process exit (`bench/cli-stage/bare-commands.ts`). weft: stage-started → agent-started (the CLI's first line naming its session), last transcript event → stage-finished; see the header of `bench/cli-stage/cli-stage.bench.ts` for what weft does in each part.",
  ].join('\n');
  const written = writeResults('cli-stage', { machine, rounds: ROUNDS, loadBefore, loadAfter, samples: results }, markdown);
  console.log(markdown);
  console.log(`\n→ ${written.markdown}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
