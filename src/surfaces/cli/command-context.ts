/**
 * What every command action gets: the global options, a lazily built app, and output
 * helpers that keep stdout for results and stderr for messages.
 */
import type { Command } from 'commander';
import type { WeftApp, WeftAppOptions } from '../../app/weft-app.js';

export interface GlobalOptions {
  storageDir?: string;
  cwd?: string;
  verbose?: boolean;
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

/** What a command adds to the app's options (the terminal, for commands that may prompt). */
export type AppExtras = Pick<WeftAppOptions, 'terminal' | 'runners'>;

/** Builds the app for a command; imported lazily so `--help` and `--version` stay instant. */
export async function openApp(command: Command, extras: AppExtras = {}): Promise<WeftApp> {
  const options = globalOptions(command);
  const [{ createWeftApp }, { version }] = await Promise.all([import('../../app/weft-app.js'), import('../../core/package-version.js')]);
  return createWeftApp({
    cwd: options.cwd,
    storageDir: options.storageDir,
    logLevel: options.verbose ? 'debug' : undefined,
    version,
    ...extras,
  });
}

export async function withApp<T>(command: Command, use: (app: WeftApp) => Promise<T>, extras: AppExtras = {}): Promise<T> {
  const app = await openApp(command, extras);
  try {
    return await use(app);
  } finally {
    await app.close();
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
