/**
 * Runs the built `weft` binary as a real child process with its own storage dir.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runNode, type Finished as CliResult } from './run-node.js';

export type { CliResult };

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const WEFT_BIN = resolve(REPO_ROOT, 'bin/weft.js');

export function runCli(args: string[], options: { cwd: string; env?: Record<string, string>; input?: string }): Promise<CliResult> {
  return runNode([WEFT_BIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    ...(options.input !== undefined ? { input: options.input } : {}),
  });
}
