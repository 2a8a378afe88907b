/**
 * The run service on its own, for a surface that only creates, reads and steers runs
 * (`weft mcp start`): the embedded store and the runner launcher, without the settings,
 * tool registry and MCP hub that `createWeftApp` also builds — so the first tool call of
 * an MCP client does not wait for them. Wired like `WeftApp.runs()`.
 */
import { createLogger, stderrSink, type LogLevel } from '../core/logger.js';
import { registerEnvironmentSecrets } from '../core/redact.js';
import { RunService } from './services/run-service.js';
import type { RunStore } from '../runs/store/run-store.js';
import { loadSettings } from '../core/settings/settings.js';
import { environmentFingerprint } from './environment-fingerprint.js';
import { openStore } from './open-store.js';
import { workspaceHost } from './workspace-host.js';
import type { WorkspaceHost } from '../runs/engine/run-files.js';
import { detachedRunnerLauncher } from './runner-launcher.js';
import { prepareStorageDir, resolveStorageDir } from './storage-dir.js';

export interface RunHostOptions {
  storageDir?: string;
  env?: Record<string, string | undefined>;
  logLevel?: LogLevel;
}

export interface RunHost {
  runs: RunService;
  storageDir: string;
  close(): Promise<void>;
}

/** @example const host = await openRunHost({ storageDir: '/home/me/.weft' }); await host.runs.get(id); await host.close(); */
/** The run service over an open store; creators wake a detached runner (shared with `WeftApp.runs()`). */
export function runServiceOver(store: RunStore, storageDir: string, env: Record<string, string | undefined>, workspaces?: WorkspaceHost): RunService {
  const launcher = detachedRunnerLauncher(storageDir, env);
  let fingerprint: string | undefined;
  // Only creators need it: `weft ps` neither computes it nor creates the key.
  const envFingerprint = () => (fingerprint ??= environmentFingerprint(storageDir, env));
  return new RunService({ store, clock: Date.now, wakeRunners: () => launcher.launch(), envFingerprint, ...(workspaces === undefined ? {} : { workspaces }) });
}

export async function openRunHost(options: RunHostOptions = {}): Promise<RunHost> {
  const env = options.env ?? process.env;
  registerEnvironmentSecrets(env);
  const storageDir = prepareStorageDir(resolveStorageDir(options.storageDir, env));
  const logger = createLogger(stderrSink(options.logLevel ?? 'warn'));
  const settings = await loadSettings({ storageDir, workspaceRoot: process.cwd() });
  const { store } = await openStore({ storageDir, env, settings, logger });
  const runs = runServiceOver(store, storageDir, env, workspaceHost(storageDir, settings, env));
  return { runs, storageDir, close: () => store.close() };
}
