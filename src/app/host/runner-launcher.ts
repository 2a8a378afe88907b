/**
 * Starts a short-lived runner process (`weft worker --until-idle --same-environment`) that
 * executes queued runs created with the launcher's environment and exits when none are
 * left. It is detached with its own session, so closing the terminal or the MCP client
 * that created a run never stops the run. Its output goes to `<storage dir>/logs/runner.log`;
 * why it failed also comes back to this process over a report channel (`runner-report.ts`)
 * and is logged here, since that log may be on a full disk.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { withoutWeftSecrets } from '../../core/child-environment.js';
import type { Logger } from '../../core/logger.js';
import { weftBinPath } from './weft-bin.js';
import { collectReport, RUNNER_REPORT_FD } from './runner-report.js';

export interface RunnerLauncher {
  /** Starts a runner unless one started by this process is still young enough to pick the work up. */
  launch(): void;
}

export function detachedRunnerLauncher(storageDir: string, env: Record<string, string | undefined>, logger?: Logger): RunnerLauncher {
  let lastLaunch = 0;
  return {
    launch() {
      // Runners poll for claimable runs; one started in the last seconds (still booting) will see this run too.
      const now = Date.now();
      if (now - lastLaunch < 3000) return;
      lastLaunch = now;
      const logs = join(storageDir, 'logs');
      const logPath = join(logs, 'runner.log');
      mkdirSync(logs, { recursive: true });
      const log = openSync(logPath, 'a', 0o600);
      try {
        const child = spawn(
          process.execPath,
          [
            weftBinPath(),
            '--storage-dir',
            storageDir,
            'worker',
            '--until-idle',
            '--same-environment',
            '--report-fd',
            String(RUNNER_REPORT_FD),
          ],
          {
            detached: true,
            stdio: ['ignore', log, log, 'pipe'],
            env: { ...withoutWeftSecrets(env), WEFT_HOME: storageDir },
          },
        );
        const channel = child.stdio[RUNNER_REPORT_FD] as (Readable & { unref?: () => void }) | null;
        // Neither the runner nor its report keeps this process alive: a launcher that exits is simply not told.
        channel?.unref?.();
        child.unref();
        // Unheard, a failed spawn would be an uncaught 'error' event in the process that created the run.
        child.once('error', (error) => logger?.error(`could not start a runner: ${error.message}`));
        if (channel && logger) {
          const report = collectReport(channel);
          child.once('exit', (code, signal) => {
            if (code === 0) return;
            void report
              .text()
              .then((text) =>
                logger.error(
                  `the runner started for this storage dir (pid ${child.pid}) exited with ${signal ? `signal ${signal}` : `code ${code}`}: ` +
                    (text === '' ? `it said nothing (see ${logPath})` : text.replace(/^weft: /, '')),
                ),
              );
          });
        }
      } finally {
        closeSync(log);
      }
    },
  };
}
