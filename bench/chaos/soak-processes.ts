/**
 * RSS and open file descriptors of every long-lived process of a soak, per window: the
 * processes the soak started (named by the caller) and their descendants that are MCP
 * servers (named by the package they run). Short-lived stage processes are left out: a
 * snapshot of them says nothing about a leak.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { rssBytes } from '../../test/fuzz/store-probe.js';

export interface ProcessSample {
  name: string;
  /** How many processes of this name were alive (several after a restart would be a leak too). */
  count: number;
  rssMb: number;
  fds: number;
}

const MCP_SERVERS: [RegExp, string][] = [
  [/server-everything/, 'mcp everything'],
  [/server-filesystem/, 'mcp filesystem'],
  [/server-memory/, 'mcp memory'],
];

function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

function parentOf(pid: number): number {
  try {
    // The command name is in parentheses and may hold spaces: the fields after it are fixed.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

function descendants(roots: readonly number[]): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) if (/^\d+$/.test(entry)) parents.set(Number(entry), parentOf(Number(entry)));
  const found = new Set(roots);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, parent] of parents) {
      if (found.has(parent) && !found.has(pid)) {
        found.add(pid);
        grew = true;
      }
    }
  }
  for (const root of roots) found.delete(root);
  return [...found];
}

/** One sample: the named roots, then the MCP servers below them, summed per name. */
export function sampleProcesses(roots: Record<string, number>): ProcessSample[] {
  const samples = new Map<string, ProcessSample>();
  const add = (name: string, pid: number) => {
    const sample = samples.get(name) ?? { name, count: 0, rssMb: 0, fds: 0 };
    sample.count += 1;
    sample.rssMb += rssBytes(pid) / 1048576;
    sample.fds += openFds(pid);
    samples.set(name, sample);
  };
  for (const [name, pid] of Object.entries(roots)) add(name, pid);
  for (const pid of descendants(Object.values(roots))) {
    const line = commandLine(pid);
    const server = MCP_SERVERS.find(([pattern]) => pattern.test(line));
    if (server) add(server[1], pid);
  }
  return [...samples.values()];
}
