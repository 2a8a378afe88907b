/**
 * bench/mcp-call `--profile` and `--profile-inflight`: the call loop again under V8's CPU
 * profiler (250 µs sampling, main thread) for the hub (`Tool.execute`), the hub
 * (`ToolExecutor`), bare v2 and bare v1, reported as self time per call by source module and
 * function. `--profile` covers the whole calls child (`node --cpu-prof`); `--profile-inflight`
 * only its rounds with 32 calls in flight (the child starts and stops the profiler around
 * them), where per-call costs differ from one call at a time.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { summarizeProfile, type ProfileSummary } from '../lib/cpu-profile.js';
import { CACHE_DIR } from '../lib/paths.js';
import { formatNumber, markdownTable } from '../lib/report.js';
import { SETTINGS, echoCallsPerCaller, type PhaseName, type PhaseOutput, type SettingsName } from './results.js';

export type ProfileScope = 'all' | 'inflight';

/** Runs one `calls` child; `failure` says why it did not finish. */
export type CallsChild = (
  phase: PhaseName,
  settings: SettingsName,
  extra: { nodeArgs?: string[]; phaseArgs?: string[] },
) => Promise<{ output?: PhaseOutput; failure?: string }>;

interface ProfileTarget {
  key: string;
  title: string;
  phase: PhaseName;
  caller: string;
}

const PROFILE_TARGETS: readonly ProfileTarget[] = [
  { key: 'hub', title: 'hub (Tool.execute)', phase: 'hub', caller: 'tool-execute' },
  { key: 'executor', title: 'hub (ToolExecutor)', phase: 'hub', caller: 'tool-executor' },
  { key: 'v2', title: 'bare v2', phase: 'v2', caller: 'sdk' },
  { key: 'v1', title: 'bare v1', phase: 'v1', caller: 'sdk' },
];

export interface ProfileReport {
  scope: ProfileScope;
  calls: number;
  profiles: { target: ProfileTarget; summary: ProfileSummary }[];
  failures: string[];
}

export async function profile(runCalls: CallsChild, scope: ProfileScope, bundleDir: string): Promise<ProfileReport> {
  const dir = join(CACHE_DIR, 'profiles');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const settings = SETTINGS.profile;
  const calls = scope === 'all' ? echoCallsPerCaller(settings) : settings.inflightCalls * settings.inflightRounds;
  const report: ProfileReport = { scope, calls, profiles: [], failures: [] };
  for (const target of PROFILE_TARGETS) {
    const file = `${target.key}.cpuprofile`;
    console.log(`mcp-call: profiling ${target.title}${scope === 'inflight' ? ', 32 in flight' : ''} …`);
    const run = await runCalls(target.phase, 'profile', {
      ...(scope === 'all'
        ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-name', file, '--cpu-prof-interval', '250'] }
        : {}),
      phaseArgs: ['--callers', target.caller, ...(scope === 'inflight' ? ['--profile-inflight', join(dir, file)] : [])],
    });
    if (run.failure) report.failures.push(`${target.title}: ${run.failure}`);
    else {
      const summary = summarizeProfile(join(dir, file), { bundleDir });
      // The long tail of functions would bloat the JSON; the tables use the top ones.
      report.profiles.push({ target, summary: { ...summary, functions: summary.functions.slice(0, 50) } });
    }
  }
  return report;
}

export function profileSection(report: ProfileReport): string {
  const perCall = (ms: number | undefined) => (ms === undefined ? undefined : (ms * 1000) / report.calls);
  const { profiles } = report;
  const moduleMs = (summary: ProfileSummary, module: string) => summary.modules.find((entry) => entry.module === module)?.ms ?? 0;
  const modules = [...new Set(profiles.flatMap(({ summary }) => summary.modules.map((entry) => entry.module)))].filter(
    (module) => module !== '(idle)',
  );
  const moduleRows = [
    ['**busy (all but idle)**', ...profiles.map(({ summary }) => formatNumber(perCall(summary.busyMs), 1))],
    ...modules
      .map((module) => ({ module, values: profiles.map(({ summary }) => perCall(moduleMs(summary, module)) ?? 0) }))
      .filter((entry) => entry.values.some((value) => value >= 0.5))
      .sort((a, b) => Math.max(...b.values) - Math.max(...a.values))
      .map((entry) => [entry.module, ...entry.values.map((value) => formatNumber(value, 1))]),
  ];
  const fnRows = (summary: ProfileSummary, filter: (module: string) => boolean, count: number) =>
    summary.functions
      .filter((fn) => filter(fn.module))
      .slice(0, count)
      .map((fn) => [fn.name, fn.where, formatNumber(perCall(fn.ms), 2)]);
  const sections = profiles
    .filter(({ target }) => target.phase === 'hub')
    .flatMap(({ target, summary }) => [
      '',
      `${target.title}: hottest functions in weft's own code (\`src/\`), self time`,
      '',
      markdownTable({ headers: ['function', 'module', 'µs/call'], rows: fnRows(summary, (module) => module.startsWith('src/'), 12) }),
    ]);
  const first = profiles[0];
  return [
    report.scope === 'all'
      ? `## Where the client's CPU goes (\`--profile\`)`
      : `## Where the client's CPU goes with 32 calls in flight (\`--profile-inflight\`)`,
    '',
    report.scope === 'all'
      ? `\`node --cpu-prof\` (250 µs sampling, main thread) over ${formatNumber(report.calls)} echo calls per client (warm-up, sequential, 32 in flight; no payloads). Self time per call by source module; weft's code is mapped back from the bundle.`
      : `V8's CPU profiler (250 µs sampling, main thread), started after the warm-up and sequential rounds, over the ${formatNumber(report.calls)} echo calls per client made with 32 in flight. Self time per call by source module; weft's code is mapped back from the bundle.`,
    ...(report.failures.length ? ['', `Failed: ${report.failures.join('; ')}`] : []),
    '',
    markdownTable({ headers: ['module', ...profiles.map(({ target }) => `${target.title} µs/call`)], rows: moduleRows }),
    ...(first
      ? [
          '',
          `${first.target.title}: hottest functions overall, self time`,
          '',
          markdownTable({ headers: ['function', 'where', 'µs/call'], rows: fnRows(first.summary, (module) => module !== '(idle)', 15) }),
        ]
      : []),
    ...sections,
  ].join('\n');
}
