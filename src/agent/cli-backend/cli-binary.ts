/**
 * Where a CLI's binary is: `[cli.<name>] path` in settings (relative paths from the run's
 * workspace), else the first executable of that name on PATH, else the binary an
 * installed npm package ships (`adapter.bundledBinary`). Not found is a stage error that
 * says where weft looked and how to fix it.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { CliAdapter } from './cli-adapter.js';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export type BinaryLookup = { found: true; path: string } | { found: false; error: string };

/**
 * @example
 * findCliBinary(claudeCodeAdapter, settings.cli.claude?.path, process.env, run.cwd); // { found: true, path: '/usr/local/bin/claude' }
 */
export function findCliBinary(
  adapter: CliAdapter,
  configured: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  workspaceDir: string,
): BinaryLookup {
  if (configured !== undefined) {
    const path = isAbsolute(configured) ? configured : resolve(workspaceDir, configured);
    if (executable(path)) return { found: true, path };
    return {
      found: false,
      error: `${adapter.displayName} was not found at ${path} ([cli.${adapter.cli}] path in settings): no executable file there. Fix the path, or remove it to look on PATH.`,
    };
  }
  const folders = (env.PATH ?? '').split(delimiter).filter((folder) => folder !== '');
  for (const folder of folders) {
    const path = join(folder, adapter.executable);
    if (executable(path)) return { found: true, path };
  }
  const bundled = adapter.bundledBinary?.();
  if (bundled !== undefined && executable(bundled)) return { found: true, path: bundled };
  return {
    found: false,
    error:
      `${adapter.displayName} ('${adapter.executable}') was not found on PATH${folders.length === 0 ? ' (PATH is empty)' : ''} and ${adapter.npmPackage} is not installed where weft runs. ` +
      `Install it (npm install -g ${adapter.npmPackage}) or set its path in .weft/settings.toml: [cli.${adapter.cli}] path = "/path/to/${adapter.executable}".`,
  };
}
