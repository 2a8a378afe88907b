/**
 * bench/lib: running a benchmark or one of its phases in a child process, so each
 * measures a fresh Node with nothing else loaded, and a failure in one cannot skew or
 * stop the others.
 */
import { spawn } from 'node:child_process';

export interface ChildOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  wallMs: number;
}

export interface ChildOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Kill the child (SIGKILL) after this long. */
  timeoutMs?: number;
}

/** Runs `node <args>` with inherited stdio; resolves when it exits, whatever the exit code. */
export function runNode(args: readonly string[], options: ChildOptions = {}): Promise<ChildOutcome> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: 'inherit',
    });
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, wallMs: performance.now() - started });
    });
  });
}

/** `exited with code 1`, `was killed by SIGKILL`, or `ok`. */
export function describeOutcome(outcome: ChildOutcome): string {
  if (outcome.signal) return `was killed by ${outcome.signal}`;
  return outcome.code === 0 ? 'ok' : `exited with code ${outcome.code ?? 'unknown'}`;
}
