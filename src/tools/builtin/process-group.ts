/**
 * Process-group helpers for the shell tool: a command runs as the leader of its own group
 * (`detached: true`), so one signal to `-pgid` reaches every process it started, including
 * backgrounded grandchildren.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Sends `signal` to every process in the group; `false` when the group no longer exists. */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if (isErrno(error, 'ESRCH')) return false;
    // EPERM: a member changed identity; nothing more we can do from here.
    if (isErrno(error, 'EPERM')) return false;
    throw error;
  }
}

/**
 * The live (not zombie) members of a process group, read from `/proc`. `undefined` where
 * `/proc` is unavailable (not Linux), so callers fall back to `kill(-pgid, 0)`.
 */
export function liveProcessGroupMembers(pgid: number): number[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcStat(Number(entry));
    if (stat && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') members.push(Number(entry));
  }
  return members;
}

/** State and process group of a pid from `/proc/<pid>/stat`; `undefined` when it is gone or unreadable. */
export function readProcStat(pid: number): { state: string; pgrp: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // `pid (comm) state ppid pgrp ...`; comm may contain spaces and parentheses.
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text.slice(close + 2).split(' ');
  const state = fields[0];
  const pgrp = Number(fields[2]);
  if (state === undefined || !Number.isInteger(pgrp)) return undefined;
  return { state, pgrp };
}

/** Whether any process of the group is still running (zombies count as gone). */
export function processGroupAlive(pgid: number): boolean {
  const members = liveProcessGroupMembers(pgid);
  if (members !== undefined) return members.length > 0;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Polls until no process of the group is running or `timeoutMs` passes; returns whether
 * the group is gone. After SIGKILL the kernel needs a moment to tear processes down.
 */
export async function waitForProcessGroupExit(pgid: number, timeoutMs: number, intervalMs = 10): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!processGroupAlive(pgid)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
