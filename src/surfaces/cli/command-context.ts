/**
 * What every command action gets: the global options, a lazily built app, and output
 * helpers that keep stdout for results and stderr for messages.
 */
import type { Command } from 'commander';
import type { WeftApp } from '../../app/weft-app.js';

export interface GlobalOptions {
  storageDir?: string;
  cwd?: string;
  verbose?: boolean;
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

/** Builds the app for a command; imported lazily so `--help` and `--version` stay instant. */
export async function openApp(command: Command): Promise<WeftApp> {
  const options = globalOptions(command);
  const [{ createWeftApp }, { version }] = await Promise.all([import('../../app/weft-app.js'), import('./version.js')]);
  return createWeftApp({ cwd: options.cwd, storageDir: options.storageDir, logLevel: options.verbose ? 'debug' : undefined, version });
}

export async function withApp<T>(command: Command, use: (app: WeftApp) => Promise<T>): Promise<T> {
  const app = await openApp(command);
  try {
    return await use(app);
  } finally {
    await app.close();
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
