/**
 * bench/mcp-call: calling a stdio MCP server through weft's hub versus the bare official
 * SDK clients (v2 and v1). Bundles the phase entry with esbuild (as weft's own CLI is
 * bundled, and so the children run plain Node without a TypeScript loader in their RSS
 * or CPU numbers), runs each phase in its own child process, and writes
 * `bench/results/mcp-call.{json,md}`.
 *
 *   node --import tsx bench/mcp-call/mcp-call.bench.ts [--quick] [--profile | --profile-inflight] [--variants]
 *
 * `--quick` is a smoke run (tiny counts; numbers are meaningless). `--profile` also runs
 * the hub's and bare v2's call loops under `node --cpu-prof` and reports where the
 * client's CPU goes, by source module and function; `--profile-inflight` profiles only the
 * rounds with 32 calls in flight. `--variants` adds bare v2 with a
 * fresh AbortSignal per call, which separates that cost from the hub's own.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import { describeOutcome, runNode } from '../lib/child-process.js';
import { BENCH_DIR, CACHE_DIR, REPO_ROOT } from '../lib/paths.js';
import { profile, profileSection, type ProfileScope } from './profile.js';
import { formatNumber, formatRatio, machineInfo, markdownTable, writeResults } from '../lib/report.js';
import { loadavg } from 'node:os';
import {
  PHASES,
  SETTINGS,
  combineCaller,
  combineStartup,
  type CallerResult,
  type PhaseName,
  type PhaseOutput,
  type PhaseResult,
  type SettingsName,
  type StartupRound,
} from './results.js';

const NAME = 'mcp-call';
const ECHO_SERVER = resolve(BENCH_DIR, 'mcp-call/echo-server.mjs');
const BUILD_DIR = join(CACHE_DIR, NAME);
const PHASE_TIMEOUT_MS = 300_000;
/** Startup counts as "no slower" within this much of the faster bare client (run-to-run noise). */
const STARTUP_NOISE = 0.05;
const RSS_TARGET_MIB = 75;

const PHASE_TITLES: Record<PhaseName, string> = { hub: 'hub', v2: 'bare v2', v1: 'bare v1' };

async function bundlePhaseEntry(): Promise<string> {
  rmSync(BUILD_DIR, { recursive: true, force: true });
  mkdirSync(BUILD_DIR, { recursive: true });
  await build({
    entryPoints: { phase: resolve(BENCH_DIR, 'mcp-call/phase-main.ts') },
    outdir: BUILD_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
    absWorkingDir: REPO_ROOT,
  });
  return join(BUILD_DIR, 'phase.mjs');
}

interface ChildRun {
  output?: PhaseOutput;
  failure?: string;
}

async function runChild(
  entry: string,
  phase: PhaseName,
  mode: PhaseOutput['mode'],
  settings: SettingsName,
  extra: { nodeArgs?: string[]; phaseArgs?: string[] } = {},
): Promise<ChildRun> {
  const out = join(BUILD_DIR, `${phase}-${mode}-${settings}-${Date.now()}.json`);
  const args = [
    ...(extra.nodeArgs ?? []),
    entry,
    '--phase',
    phase,
    '--mode',
    mode,
    '--echo',
    ECHO_SERVER,
    '--out',
    out,
    '--settings',
    settings,
    ...(extra.phaseArgs ?? []),
  ];
  const outcome = await runNode(args, { cwd: REPO_ROOT, timeoutMs: PHASE_TIMEOUT_MS });
  if (outcome.code !== 0) return { failure: `${mode} child ${describeOutcome(outcome)}` };
  return { output: JSON.parse(readFileSync(out, 'utf8')) as PhaseOutput };
}

interface PhaseRun {
  result?: PhaseResult;
  failure?: string;
}

/**
 * `passes` times: one startup child and one calls child per phase, the phase order
 * rotating from pass to pass, so drift on the machine hits every client alike.
 */
async function runPhases(entry: string, settingsName: SettingsName, variants: boolean): Promise<Record<PhaseName, PhaseRun>> {
  const settings = SETTINGS[settingsName];
  const children = new Map<PhaseName, ChildRun[]>(PHASES.map((phase) => [phase, []]));
  for (let pass = 0; pass < settings.passes; pass += 1) {
    const order = PHASES.map((_, index) => PHASES[(index + pass) % PHASES.length] as PhaseName);
    for (const phase of order) {
      console.log(`mcp-call: ${phase}: startup and memory, pass ${pass + 1} of ${settings.passes} …`);
      // The one-after-another reference takes seconds; once is enough.
      const phaseArgs = phase === 'v2' && pass === 0 ? ['--sequential-startup'] : [];
      children.get(phase)?.push(await runChild(entry, phase, 'startup', settingsName, { phaseArgs }));
    }
    for (const phase of order) {
      console.log(`mcp-call: ${phase}: calls, pass ${pass + 1} of ${settings.passes} …`);
      // Bare v2's extra caller only runs when asked for; it doubles that child's time.
      const phaseArgs = phase === 'v2' && !variants ? ['--callers', 'sdk'] : [];
      children.get(phase)?.push(await runChild(entry, phase, 'calls', settingsName, { phaseArgs }));
    }
  }
  const runs = {} as Record<PhaseName, PhaseRun>;
  for (const phase of PHASES) {
    const ran = children.get(phase) ?? [];
    const failures = ran.map((child) => child.failure).filter((failure): failure is string => failure !== undefined);
    if (failures.length > 0) {
      console.error(`mcp-call: ${phase}: ${failures.join('; ')}`);
      runs[phase] = { failure: failures.join('; ') };
      continue;
    }
    const outputs = ran.map((child) => child.output).filter((output): output is PhaseOutput => output !== undefined);
    const startup = combineStartup(
      outputs.map((output) => output.startup).filter((round): round is StartupRound => round !== undefined),
      settings,
    );
    const keys = [...new Set(outputs.flatMap((output) => output.callers.map((caller) => caller.key)))];
    runs[phase] = {
      result: {
        phase,
        client: outputs[0]?.client ?? phase,
        ...(startup ? { startup } : {}),
        callers: keys.map((key) =>
          combineCaller(
            outputs.flatMap((output) => output.callers.filter((caller) => caller.key === key)),
            settings,
          ),
        ),
      },
    };
  }
  return runs;
}

// ---- the tables ---------------------------------------------------------------------

type Better = 'lower' | 'higher';

interface Metric {
  label: string;
  digits: number;
  better: Better;
  value: (phase: PhaseResult, caller: CallerResult | undefined) => number | undefined;
  /** Whether the hub meets its target, given the three values; undefined = no target. */
  target?: { text: string; met: (hub: number, v2: number | undefined, v1: number | undefined) => boolean | undefined };
}

const within10 = (better: Better) => ({
  text: better === 'lower' ? '≤ 1.10 × v2' : '≥ 0.90 × v2',
  met: (hub: number, v2: number | undefined) => (v2 === undefined ? undefined : better === 'lower' ? hub <= 1.1 * v2 : hub >= 0.9 * v2),
});

const CALL_METRICS: Metric[] = [
  { label: 'sequential latency p50 (ms)', digits: 3, better: 'lower', value: (_, c) => c?.sequential.latencyMs.p50 },
  { label: 'sequential latency p99 (ms)', digits: 3, better: 'lower', value: (_, c) => c?.sequential.latencyMs.p99 },
  { label: 'sequential calls/s', digits: 0, better: 'higher', value: (_, c) => c?.sequential.callsPerSec, target: within10('higher') },
  {
    label: 'client CPU per call, sequential (µs)',
    digits: 0,
    better: 'lower',
    value: (_, c) => c?.sequential.cpuMicrosPerCall,
    target: within10('lower'),
  },
  { label: '32 in flight: calls/s', digits: 0, better: 'higher', value: (_, c) => c?.inflight.callsPerSec, target: within10('higher') },
  {
    label: 'client CPU per call, 32 in flight (µs)',
    digits: 0,
    better: 'lower',
    value: (_, c) => c?.inflight.cpuMicrosPerCall,
    target: within10('lower'),
  },
  { label: '1 MiB payload: MiB/s', digits: 1, better: 'higher', value: (_, c) => c?.payload.mibPerSec, target: within10('higher') },
  {
    label: 'client CPU per MiB of payload (ms)',
    digits: 2,
    better: 'lower',
    value: (_, c) => (c ? c.payload.cpuMicrosPerMiB / 1000 : undefined),
  },
];

const PROCESS_METRICS: Metric[] = [
  { label: 'RSS before any server (MiB)', digits: 1, better: 'lower', value: (p) => p.startup?.baselineRssMiB },
  {
    label: 'RSS after 10 connects (MiB)',
    digits: 1,
    better: 'lower',
    value: (p) => p.startup?.settledRssMiB,
    target: { text: `hub ≤ ${RSS_TARGET_MIB} MiB`, met: (hub) => hub <= RSS_TARGET_MIB },
  },
  {
    label: 'ready: 10 × 300 ms servers at once (ms)',
    digits: 0,
    better: 'lower',
    value: (p) => p.startup?.parallelReadyMs,
    target: {
      text: 'hub ≤ bare (±5 %)',
      met: (hub, v2, v1) => {
        const bare = [v2, v1].filter((value): value is number => value !== undefined);
        return bare.length === 0 ? undefined : hub <= (1 + STARTUP_NOISE) * Math.min(...bare);
      },
    },
  },
  { label: 'ready: 1 such server alone (ms)', digits: 0, better: 'lower', value: (p) => p.startup?.singleReadyMs },
  { label: 'ready: the 10, one after another (ms)', digits: 0, better: 'lower', value: (p) => p.startup?.sequentialReadyMs },
];

const yesNo = (met: boolean | undefined) => (met === undefined ? '' : met ? 'yes' : 'NO');

function mainTable(runs: Record<PhaseName, PhaseRun>): string {
  const cell = (phase: PhaseName, metric: Metric) => {
    const result = runs[phase].result;
    return result ? metric.value(result, result.callers[0]) : undefined;
  };
  const rows = [...CALL_METRICS, ...PROCESS_METRICS].map((metric) => {
    const hub = cell('hub', metric);
    const v2 = cell('v2', metric);
    const v1 = cell('v1', metric);
    const met = hub === undefined ? undefined : metric.target?.met(hub, v2, v1);
    return [
      metric.label,
      ...PHASES.map((phase) => (runs[phase].failure ? 'failed' : formatNumber(cell(phase, metric), metric.digits))),
      formatRatio(hub, v2),
      metric.target?.text ?? '',
      yesNo(met),
    ];
  });
  return markdownTable({ headers: ['metric', ...PHASES.map((phase) => PHASE_TITLES[phase]), 'hub ÷ v2', 'target', 'met'], rows });
}

/** With `--variants`: bare v2 given one fresh AbortSignal per call, as the hub gives the SDK. */
function variantSection(runs: Record<PhaseName, PhaseRun>): string[] {
  const v2 = runs.v2.result;
  const bare = v2?.callers.find((caller) => caller.key === 'sdk');
  const signal = v2?.callers.find((caller) => caller.key === 'sdk-signal');
  const hub = runs.hub.result;
  if (!v2 || !bare || !signal) return [];
  const rows = CALL_METRICS.map((metric) => {
    const withSignal = metric.value(v2, signal);
    const plain = metric.value(v2, bare);
    const viaHub = hub ? metric.value(hub, hub.callers[0]) : undefined;
    return [
      metric.label,
      formatNumber(plain, metric.digits),
      formatNumber(withSignal, metric.digits),
      formatNumber(viaHub, metric.digits),
      formatRatio(withSignal, plain),
      formatRatio(viaHub, withSignal),
    ];
  });
  return [
    '',
    '## Bare v2 with an AbortSignal per call (`--variants`)',
    '',
    "The hub forwards every call's `context.signal` to the SDK; this isolates what that alone costs the bare client, so the rest is the hub's own.",
    '',
    markdownTable({ headers: ['metric', 'bare v2', 'bare v2 + signal', 'hub', 'signal ÷ bare', 'hub ÷ (v2 + signal)'], rows }),
  ];
}

/** How far apart the rounds were: the noise any ratio has to be read against. */
function spreadLine(runs: Record<PhaseName, PhaseRun>): string {
  const range = (phase: PhaseName, pick: (caller: CallerResult) => [number, number]) => {
    const caller = runs[phase].result?.callers[0];
    if (!caller) return '–';
    const [low, high] = pick(caller);
    return `${formatNumber(low)}–${formatNumber(high)}`;
  };
  const part = (title: string, pick: (caller: CallerResult) => [number, number]) =>
    `${title}: ${PHASES.map((phase) => `${PHASE_TITLES[phase]} ${range(phase, pick)}`).join(', ')}`;
  const ready = PHASES.map((phase) => {
    const rounds = runs[phase].result?.startup?.rounds.map((round) => round.parallelReadyMs) ?? [];
    return `${PHASE_TITLES[phase]} ${rounds.length ? `${formatNumber(Math.min(...rounds))}–${formatNumber(Math.max(...rounds))}` : '–'}`;
  });
  return (
    `Slowest–fastest round, calls/s — ${part('sequential', (caller) => caller.sequential.callsPerSecRange)}; ${part('32 in flight', (caller) => caller.inflight.callsPerSecRange)}. ` +
    `Ready, 10 at once, ms: ${ready.join(', ')}.`
  );
}

/** Issue 17's goal for the executor path: bare v1's CPU per call or less, its calls/s in flight or more. */
const EXECUTOR_TARGETS: Partial<Record<string, { text: string; met: (executor: number, v1: number) => boolean }>> = {
  'client CPU per call, sequential (µs)': { text: '≤ v1', met: (executor, v1) => executor <= v1 },
  'client CPU per call, 32 in flight (µs)': { text: '≤ v1', met: (executor, v1) => executor <= v1 },
  '32 in flight: calls/s': { text: '≥ v1', met: (executor, v1) => executor >= v1 },
};

function executorTable(runs: Record<PhaseName, PhaseRun>): string | undefined {
  const hub = runs.hub.result;
  const direct = hub?.callers.find((caller) => caller.key === 'tool-execute');
  const executor = hub?.callers.find((caller) => caller.key === 'tool-executor');
  const v2 = runs.v2.result;
  const v1 = runs.v1.result;
  if (!hub || !direct || !executor) return undefined;
  const rows = CALL_METRICS.map((metric) => {
    const viaExecutor = metric.value(hub, executor);
    const bareV2 = v2 ? metric.value(v2, v2.callers[0]) : undefined;
    const bareV1 = v1 ? metric.value(v1, v1.callers[0]) : undefined;
    const target = EXECUTOR_TARGETS[metric.label];
    const met = target && viaExecutor !== undefined && bareV1 !== undefined ? target.met(viaExecutor, bareV1) : undefined;
    return [
      metric.label,
      formatNumber(viaExecutor, metric.digits),
      formatNumber(metric.value(hub, direct), metric.digits),
      formatNumber(bareV2, metric.digits),
      formatNumber(bareV1, metric.digits),
      formatRatio(viaExecutor, bareV2),
      formatRatio(viaExecutor, bareV1),
      target?.text ?? '',
      yesNo(met),
    ];
  });
  return markdownTable({
    headers: [
      'metric',
      'hub via ToolExecutor',
      'hub via Tool.execute',
      'bare v2',
      'bare v1',
      'executor ÷ v2',
      'executor ÷ v1',
      'target',
      'met',
    ],
    rows,
  });
}

// ---- main ---------------------------------------------------------------------------

async function main(argv: readonly string[]): Promise<number> {
  const quick = argv.includes('--quick');
  const settingsName: SettingsName = quick ? 'quick' : 'full';
  const settings = SETTINGS[settingsName];
  const entry = await bundlePhaseEntry();

  const loadBefore = loadavg();
  const runs = await runPhases(entry, settingsName, argv.includes('--variants'));
  const loadAfter = loadavg();
  const profileScope: ProfileScope | undefined = argv.includes('--profile-inflight')
    ? 'inflight'
    : argv.includes('--profile')
      ? 'all'
      : undefined;
  const profiled = profileScope
    ? await profile((phase, settingsName, extra) => runChild(entry, phase, 'calls', settingsName, extra), profileScope, BUILD_DIR)
    : undefined;

  const machine = machineInfo();
  const executor = executorTable(runs);
  const markdown = [
    `# mcp-call — weft's MCP hub vs the bare SDK clients${quick ? ' (QUICK SMOKE RUN — numbers not meaningful)' : ''}`,
    '',
    `${machine.date} · Node ${machine.node} · ${machine.platform} · ${machine.cpus} × ${machine.cpuModel} · load average ${loadBefore[0]?.toFixed(1)} before, ${loadAfter[0]?.toFixed(1)} after (1 min; anything else running skews the numbers)`,
    '',
    `One stdio echo server (official SDK v2 server). Calls: ${settings.passes} child processes per client, interleaved with the other clients'; each warms up with ` +
      `${formatNumber(settings.warmupCalls)} sequential + ${formatNumber(settings.warmupCalls)} concurrent calls, then runs ${settings.sequentialRounds} × ${formatNumber(settings.sequentialCalls)} sequential, ` +
      `${settings.inflightRounds} × ${formatNumber(settings.inflightCalls)} with ${settings.concurrency} in flight, ${settings.payloadRounds} × ${settings.payloadCalls} payloads of ${formatNumber(settings.payloadBytes / 1024)} KiB ` +
      `(rates and CPU: median over all rounds; latency percentiles: over all sequential calls). Startup: ${settings.passes} more children per client, each connecting ${settings.startupServers} servers that hold their \`initialize\` answer ${settings.startupInitDelayMs} ms ` +
      `(ready = initialize + tools/list answered by all), then one such server alone; RSS is the client process only, 500 ms after the ${settings.startupServers} were ready. Startup and RSS are medians over those children.`,
    '',
    "**hub** = `McpHub` + the registered tool's `Tool.execute`; **bare v2** = `@modelcontextprotocol/client` `Client` + `StdioClientTransport`; **bare v1** = `@modelcontextprotocol/sdk` `Client` + `StdioClientTransport`.",
    '',
    mainTable(runs),
    '',
    spreadLine(runs),
    ...(executor
      ? ['', '## Through `ToolExecutor` (what an agent turn runs: lookup, schema check, approval, timeout, output budget)', '', executor]
      : []),
    ...variantSection(runs),
    ...(profiled ? ['', profileSection(profiled)] : []),
  ].join('\n');

  const written = writeResults(
    NAME,
    { machine, loadAverage: { before: loadBefore, after: loadAfter }, settings, phases: runs, profile: profiled },
    markdown,
  );
  console.log(`\n${markdown}\n`);
  console.log(`mcp-call: wrote ${relative(REPO_ROOT, written.json)} and ${relative(REPO_ROOT, written.markdown)}`);
  return PHASES.every((phase) => runs[phase].result) ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  },
);
