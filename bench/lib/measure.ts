/**
 * bench/lib: what a benchmark reads off its own process — wall time, CPU time
 * (`process.cpuUsage`: user + system, every thread of the process), resident set size —
 * and a helper that times one block of work with all of them; and the CPU time of another
 * process (a server under test).
 */
import { readFileSync } from 'node:fs';

export const MIB = 1024 * 1024;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Milliseconds on the monotonic clock. */
export function now(): number {
  return performance.now();
}

/** CPU time (user + system) this process has used since `start`, in microseconds. */
export function cpuMicrosSince(start: NodeJS.CpuUsage): number {
  const delta = process.cpuUsage(start);
  return delta.user + delta.system;
}

/** This process's resident set size, in MiB. */
export function rssMiB(): number {
  return process.memoryUsage.rss() / MIB;
}

export interface Measured<T> {
  value: T;
  wallMs: number;
  cpuMicros: number;
}

/** Runs `work` once and reports its wall time and the CPU this process spent meanwhile. */
export async function measure<T>(work: () => Promise<T>): Promise<Measured<T>> {
  const cpu = process.cpuUsage();
  const started = now();
  const value = await work();
  const wallMs = now() - started;
  return { value, wallMs, cpuMicros: cpuMicrosSince(cpu) };
}

/**
 * CPU time (user + system, every thread) another process has used so far, in ms, from
 * `/proc/<pid>/stat`; `undefined` where there is no `/proc` (macOS, Windows). Counted in
 * clock ticks of 10 ms, so read it across many calls, never around one.
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * CLOCK_TICK_MS : undefined;
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ: 100 ticks a second on every mainstream kernel build. */
const CLOCK_TICK_MS = 10;
