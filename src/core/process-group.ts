/**
 * Signals to whole process groups (a stdio server or a shell command and everything it
 * started), and the wait-for-exit helpers shutdown uses. POSIX only; on Windows the leader
 * alone is signalled.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

export const PROCESS_GROUPS = process.platform !== 'win32';

/** Sends `signal` to the group led by `pgid`; false when no such group exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(PROCESS_GROUPS ? -pgid : pgid, signal);
    return true;
  } catch (error) {
    // EPERM: the group exists but is not ours to signal; it is alive all the same.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether any process of the group still runs. On Linux zombies do not count: an orphan
 * whose new parent never reaps it (a container's init) would otherwise look alive forever.
 */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  return liveMemberOnLinux(pgid) ?? true;
}

function liveMemberOnLinux(pgid: number): boolean | undefined {
  if (process.platform !== 'linux' || !PROCESS_GROUPS) return undefined;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // `pid (comm) state ppid pgrp …`; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}

export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves true once `child` has exited, or false after `ms`. */
export function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (hasExited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, ms);
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}

/** Polls until the group is gone (true) or `ms` passed (false). */
export async function waitForGroupExit(pgid: number, ms: number, pollMs = 50): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return true;
}

/**
 * Ends a process group: SIGTERM, then SIGKILL when it is still there after `graceMs`.
 * Returns once the group is gone (or SIGKILL was sent and had a moment to land).
 */
export async function terminateGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  if (await waitForGroupExit(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  await waitForGroupExit(pgid, 1000);
}
