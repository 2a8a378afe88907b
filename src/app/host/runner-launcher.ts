/**
 * Starts a short-lived runner process (`weft worker --until-idle --same-environment`) that
 * executes queued runs created with the launcher's environment and exits when none are
 * left. It is detached with its own session, so closing the terminal or the MCP client
 * that created a run never stops the run.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { withoutWeftSecrets } from '../../core/child-environment.js';
import { weftBinPath } from './weft-bin.js';

export interface RunnerLauncher {
  /** Starts a runner unless one started by this process is still young enough to pick the work up. */
  launch(): void;
}

export function detachedRunnerLauncher(storageDir: string, env: Record<string, string | undefined>): RunnerLauncher {
  let lastLaunch = 0;
  return {
    launch() {
      // Runners poll for claimable runs; one started in the last seconds (still booting) will see this run too.
      const now = Date.now();
      if (now - lastLaunch < 3000) return;
      lastLaunch = now;
      const logs = join(storageDir, 'logs');
      mkdirSync(logs, { recursive: true });
      const log = openSync(join(logs, 'runner.log'), 'a', 0o600);
      try {
        const child = spawn(
          process.execPath,
          [weftBinPath(), '--storage-dir', storageDir, 'worker', '--until-idle', '--same-environment'],
          {
            detached: true,
            stdio: ['ignore', log, log],
            env: { ...withoutWeftSecrets(env), WEFT_HOME: storageDir },
          },
        );
        child.unref();
      } finally {
        closeSync(log);
      }
    },
  };
}
