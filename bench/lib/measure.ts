/**
 * bench/lib: what a benchmark reads off its own process — wall time, CPU time
 * (`process.cpuUsage`: user + system, every thread of the process), resident set size —
 * and a helper that times one block of work with all of them.
 */

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
