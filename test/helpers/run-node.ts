/**
 * Runs `node <args>` as a real child process and collects its exit code and output.
 */
import { spawn } from 'node:child_process';

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runNode(
  args: string[],
  options: { cwd: string; env?: Record<string, string | undefined>; input?: string },
): Promise<Finished> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', fail);
    child.once('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
