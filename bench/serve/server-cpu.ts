/**
 * bench/serve: CPU time a server process has used, read from /proc (Linux), so a route's
 * cost per request can be given apart from the client's and from the waits a loaded
 * machine adds to latency. `undefined` where /proc is not there.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** @example const before = processCpuMs(child.pid); …; const used = processCpuMs(child.pid)! - before!; */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // The fields after the command name (which may hold spaces) start with the state, field 3.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
