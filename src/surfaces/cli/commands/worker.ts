/**
 * `weft worker`: a runner process that executes queued runs (and picks up runs whose
 * runner died). SIGINT/SIGTERM stop it cleanly: its leases are released so another
 * runner can carry on at once.
 */
import type { Command } from 'commander';
import { WeftError } from '../../../core/errors.js';
import { pruneRuns } from '../../../app/services/run-prune.js';
import { withApp } from '../command-context.js';
import { runScheduleTicks } from '../../../app/services/schedule-ticker.js';
import { untilInterrupted } from '../interrupt.js';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('execute queued runs until stopped (Ctrl-C); several workers may share one storage dir')
    .option('--max-parallel <n>', 'runs executed at once', '8')
    .option('--until-idle', 'exit once there is nothing left to run')
    .option(
      '--same-environment',
      'execute only runs created with exactly this environment (what the runners weft run starts do); default: any run, with this environment',
    )
    .action(async (options: { maxParallel: string; untilIdle?: boolean; sameEnvironment?: boolean }, command: Command) => {
      const maxParallel = Number(options.maxParallel);
      if (!Number.isInteger(maxParallel) || maxParallel < 1)
        throw new WeftError('USAGE', `--max-parallel must be a whole number ≥ 1, not '${options.maxParallel}'.`);
      await withApp(command, async (app) => {
        // `[runs] retention` is applied once per worker start: old finished runs go before new ones run.
        if (app.settings.runRetentionMs !== undefined)
          await pruneRuns(await app.runs(), app.storageDir, { olderThanMs: app.settings.runRetentionMs });
        const worker = await app.worker({
          maxParallel,
          untilIdle: options.untilIdle === true,
          sameEnvironment: options.sameEnvironment === true,
        });
        // Long-lived workers tick the schedules; the short-lived runners weft run starts do not.
        const schedules = options.untilIdle === true ? undefined : await app.schedules();
        await untilInterrupted(
          (signal) =>
            Promise.all([
              worker.run(signal),
              schedules === undefined
                ? undefined
                : runScheduleTicks(schedules, signal, app.logger, { settings: app.settings, workspaceRoot: app.workspaceRoot }),
            ]).then(() => undefined),
          ['SIGINT', 'SIGTERM'],
        );
      });
    });
}
