/**
 * Processes found by a variable in their environment. A process group does not hold
 * everything a CLI agent starts: Claude Code runs each shell command in a new session of
 * its own, which no signal to the CLI's group reaches. What those commands do inherit is
 * the environment, so weft marks a CLI stage's processes with `WEFT_STAGE_PROCESS` and
 * ends the marked ones when the stage ends, or — after a crash — before the stage runs
 * again. Linux (`/proc/<pid>/environ`); elsewhere no process is found.
 */
import { readdir, readFile } from 'node:fs/promises';
import { signalGroup } from './process-group.js';

/** The variable that marks a stage's processes; its value names the stage attempt. */
export const STAGE_PROCESS_ENV = 'WEFT_STAGE_PROCESS';

/** Pids of the live processes whose environment has `STAGE_PROCESS_ENV=<marker>` (not this process). */
export async function markedProcesses(marker: string): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  const needle = Buffer.from(`\0${STAGE_PROCESS_ENV}=${marker}\0`);
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const found: number[] = [];
  await Promise.all(
    entries.map(async (entry) => {
      if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return;
      const environ = await readFile(`/proc/${entry}/environ`).catch(() => undefined);
      if (environ === undefined) return;
      // The first variable has no NUL before it.
      const padded = Buffer.concat([Buffer.from([0]), environ, Buffer.from([0])]);
      if (padded.includes(needle) && !(await zombie(entry))) found.push(Number(entry));
    }),
  );
  return found;
}

async function zombie(pid: string): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X' || state === '';
}

/**
 * SIGTERM to the group of every marked process (a shell command's children go with it),
 * SIGKILL to what is left after `graceMs`. Resolves true when none is left.
 *
 * @example
 * await endMarkedProcesses(`${runId}/${stageId}`, 1000);
 */
export async function endMarkedProcesses(marker: string, graceMs: number): Promise<boolean> {
  const signalAll = async (signal: NodeJS.Signals): Promise<number> => {
    const pids = await markedProcesses(marker);
    for (const pid of pids) {
      // Its group when it leads one (a command's shell), else itself.
      if (!signalGroup(pid, signal)) {
        try {
          process.kill(pid, signal);
        } catch {
          // gone meanwhile
        }
      }
    }
    return pids.length;
  };
  if ((await signalAll('SIGTERM')) === 0) return true;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if ((await markedProcesses(marker)).length === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await signalAll('SIGKILL');
  for (let tries = 0; tries < 20; tries += 1) {
    if ((await markedProcesses(marker)).length === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}
