/**
 * bench/mcp-call: the settings every phase runs with, the raw rounds a phase child
 * reports (JSON, to the file the orchestrator names), and how the orchestrator folds the
 * rounds of several child processes into one result per client.
 */
import { median, summarize, type Summary } from '../lib/stats.js';

export type PhaseName = 'hub' | 'v2' | 'v1';

export const PHASES: readonly PhaseName[] = ['hub', 'v2', 'v1'];

export interface PhaseSettings {
  /** Separate `startup` and `calls` child processes per phase, interleaved with the other phases'. */
  passes: number;
  startupServers: number;
  startupInitDelayMs: number;
  /** Sequential and again 32-in-flight echo calls before anything is measured. */
  warmupCalls: number;
  sequentialCalls: number;
  sequentialRounds: number;
  concurrency: number;
  inflightCalls: number;
  inflightRounds: number;
  payloadBytes: number;
  payloadCalls: number;
  payloadRounds: number;
}

export const FULL_SETTINGS: PhaseSettings = {
  passes: 3,
  startupServers: 10,
  startupInitDelayMs: 300,
  warmupCalls: 3000,
  sequentialCalls: 2000,
  sequentialRounds: 2,
  concurrency: 32,
  inflightCalls: 4000,
  inflightRounds: 2,
  payloadBytes: 1024 * 1024,
  payloadCalls: 16,
  payloadRounds: 2,
};

/** A smoke run (`--quick`): every step once, small counts; the numbers mean nothing. */
export const QUICK_SETTINGS: PhaseSettings = {
  ...FULL_SETTINGS,
  passes: 1,
  warmupCalls: 50,
  sequentialCalls: 200,
  sequentialRounds: 1,
  inflightCalls: 400,
  inflightRounds: 1,
  payloadCalls: 4,
  payloadRounds: 1,
};

/** For `--profile`: echo calls only (no payloads), enough of them for a steady profile. */
export const PROFILE_SETTINGS: PhaseSettings = {
  ...FULL_SETTINGS,
  passes: 1,
  sequentialCalls: 3000,
  sequentialRounds: 2,
  inflightCalls: 6000,
  inflightRounds: 2,
  payloadRounds: 0,
};

export const SETTINGS = { full: FULL_SETTINGS, quick: QUICK_SETTINGS, profile: PROFILE_SETTINGS } as const;

export type SettingsName = keyof typeof SETTINGS;

/** How many echo calls one caller makes in a `calls` child (warm-up included); profiles divide by it. */
export function echoCallsPerCaller(settings: PhaseSettings): number {
  return 2 * settings.warmupCalls + settings.sequentialCalls * settings.sequentialRounds + settings.inflightCalls * settings.inflightRounds;
}

export interface Round {
  calls: number;
  wallMs: number;
  cpuMicros: number;
}

/** What one `calls` child measured for one caller. */
export interface CallerRounds {
  key: string;
  label: string;
  sequential: Round[];
  /** Every sequential call's latency, in order. */
  latenciesMs: number[];
  inflight: Round[];
  payload: Round[];
}

/** What one `startup` child measured (one round of each). */
export interface StartupRound {
  /** Start → every server ready (initialize + tools/list), all connected at once. */
  parallelReadyMs: number;
  /** One such server alone: the floor "in parallel" can reach. */
  singleReadyMs: number;
  /** The same servers connected one after another (only when asked for). */
  sequentialReadyMs?: number;
  /** After loading the client code, before any server. */
  baselineRssMiB: number;
  /** Right after the servers were all ready. */
  connectedRssMiB: number;
  /** 500 ms later, still connected: the headline number. */
  settledRssMiB: number;
  settledHeapUsedMiB: number;
}

export interface StartupResult {
  servers: number;
  initDelayMs: number;
  /** Medians over the startup children (each a fresh process). */
  parallelReadyMs: number;
  singleReadyMs: number;
  sequentialReadyMs?: number;
  baselineRssMiB: number;
  settledRssMiB: number;
  rounds: StartupRound[];
}

/** What one phase child writes: a `startup` child fills startup and memory, a `calls` child callers. */
export interface PhaseOutput {
  phase: PhaseName;
  client: string;
  mode: 'startup' | 'calls';
  startup?: StartupRound;
  callers: CallerRounds[];
}

export interface RateResult {
  /** Medians over every round of every pass. */
  callsPerSec: number;
  cpuMicrosPerCall: number;
  /** Slowest and fastest round, to show the noise. */
  callsPerSecRange: [number, number];
  rounds: Round[];
}

export interface CallerResult {
  key: string;
  label: string;
  sequential: RateResult & { latencyMs: Summary };
  inflight: RateResult & { concurrency: number };
  payload: RateResult & { bytes: number; mibPerSec: number; cpuMicrosPerMiB: number };
}

export interface PhaseResult {
  phase: PhaseName;
  client: string;
  startup?: StartupResult;
  callers: CallerResult[];
}

const perSecond = (round: Round) => round.calls / (round.wallMs / 1000);
const cpuPerCall = (round: Round) => round.cpuMicros / round.calls;

function rates(rounds: Round[]): RateResult {
  const speeds = rounds.map(perSecond);
  return {
    callsPerSec: median(speeds),
    cpuMicrosPerCall: median(rounds.map(cpuPerCall)),
    callsPerSecRange: [Math.min(...speeds), Math.max(...speeds)],
    rounds,
  };
}

/** Folds one caller's rounds from every `calls` child of a phase into its result. */
export function combineCaller(parts: readonly CallerRounds[], settings: PhaseSettings): CallerResult {
  const first = parts[0];
  if (!first) throw new Error('no rounds to combine');
  const mib = settings.payloadBytes / (1024 * 1024);
  const payload = rates(parts.flatMap((part) => part.payload));
  return {
    key: first.key,
    label: first.label,
    sequential: { ...rates(parts.flatMap((part) => part.sequential)), latencyMs: summarize(parts.flatMap((part) => part.latenciesMs)) },
    inflight: { ...rates(parts.flatMap((part) => part.inflight)), concurrency: settings.concurrency },
    payload: {
      ...payload,
      bytes: settings.payloadBytes,
      mibPerSec: payload.callsPerSec * mib,
      cpuMicrosPerMiB: payload.cpuMicrosPerCall / mib,
    },
  };
}

/** Folds the rounds of every `startup` child of a phase into its result. */
export function combineStartup(rounds: readonly StartupRound[], settings: PhaseSettings): StartupResult | undefined {
  if (rounds.length === 0) return undefined;
  const sequential = rounds.map((round) => round.sequentialReadyMs).filter((value): value is number => value !== undefined);
  return {
    servers: settings.startupServers,
    initDelayMs: settings.startupInitDelayMs,
    parallelReadyMs: median(rounds.map((round) => round.parallelReadyMs)),
    singleReadyMs: median(rounds.map((round) => round.singleReadyMs)),
    ...(sequential.length > 0 ? { sequentialReadyMs: median(sequential) } : {}),
    baselineRssMiB: median(rounds.map((round) => round.baselineRssMiB)),
    settledRssMiB: median(rounds.map((round) => round.settledRssMiB)),
    rounds: [...rounds],
  };
}
