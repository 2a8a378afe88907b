/**
 * Who a process is, beyond its pid: the host it runs on and when it started. Pids are
 * reused; a pid together with its start time is not, so a record written by one weft
 * process lets another tell "that process is still running" from "a different process
 * now has its pid".
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface ProcessIdentity {
  host: string;
  pid: number;
  /** Start time as the kernel counts it (Linux: clock ticks since boot); '' where unknown. */
  start: string;
}

/** This machine's name, as recorded in identities. */
export function thisHost(): string {
  return hostname();
}

/** The identity of `pid` on this host, or undefined when no such process runs. */
export function processIdentity(pid: number): ProcessIdentity | undefined {
  const start = processStart(pid);
  return start === undefined ? undefined : { host: thisHost(), pid, start };
}

/**
 * What became of the process an identity names: still `alive`, `exited` (no process has
 * its pid), `replaced` (another process has the pid now), or `elsewhere` (another host;
 * nothing here can look there).
 */
export type IdentityState = 'alive' | 'exited' | 'replaced' | 'elsewhere';

export function identityState(identity: ProcessIdentity): IdentityState {
  if (identity.host !== thisHost()) return 'elsewhere';
  const start = processStart(identity.pid);
  if (start === undefined) return 'exited';
  return identity.start === '' || start === '' || start === identity.start ? 'alive' : 'replaced';
}

/** The start time of a live, non-zombie process; '' when it runs but the start is unknown. */
function processStart(pid: number): string | undefined {
  if (process.platform === 'linux') {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return undefined;
    }
    // `pid (comm) state ppid … starttime` — starttime is field 22; comm may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
    return fields[19] ?? '';
  }
  try {
    process.kill(pid, 0);
    return '';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? '' : undefined;
  }
}
