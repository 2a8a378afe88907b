/**
 * Running the CLI under a pseudo-terminal (util-linux `script`), and reading its output as
 * a terminal would show it.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export const ESC = String.fromCharCode(27);
const CONTROL_SEQUENCE = new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]`, 'g');

/** What a terminal shows: CRLF as LF, each line as it ends up after `\r` rewrites, escapes gone. */
export function screen(raw: string): string[] {
  return raw
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => (line.split('\r').at(-1) ?? '').replace(CONTROL_SEQUENCE, ''));
}

/** `argv` with a pseudo-terminal for its stdin and stdout; what it writes arrives on the child's stdout, what is written to the child's stdin is typed into it. */
export function spawnInTerminal(argv: string[], options: { cwd: string; env?: Record<string, string> }): ChildProcessWithoutNullStreams {
  const command = argv.map((word) => `'${word}'`).join(' ');
  return spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env, COLUMNS: '200' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}
