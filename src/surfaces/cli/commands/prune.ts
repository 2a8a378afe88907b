/**
 * `weft prune --older-than 30d [--status …] [--dry-run]`: deletes old finished runs.
 */
import type { Command } from 'commander';
import { parseDuration } from '../../../core/duration.js';
import { WeftError } from '../../../core/errors.js';
import { pruneRuns } from '../../../app/services/run-prune.js';
import { printJson, withApp } from '../command-context.js';
import { collect } from '../options.js';

export function registerPruneCommand(program: Command): void {
  program
    .command('prune')
    .description('delete finished runs older than an age, with their events and artifacts')
    .requiredOption('--older-than <age>', 'e.g. 30d, 12h')
    .option('--status <status>', 'only runs with this status: succeeded, failed or cancelled (repeatable)', collect, [])
    .option('--dry-run', 'list what would be deleted; delete nothing')
    .option('--json', 'print JSON')
    .action(async (options: { olderThan: string; status: string[]; dryRun?: boolean; json?: boolean }, command: Command) => {
      const olderThanMs = parseDuration(options.olderThan);
      if (olderThanMs === undefined)
        throw new WeftError(
          'USAGE',
          `--older-than '${options.olderThan}' is not an age; use a number with a unit, e.g. --older-than 30d or 12h.`,
        );
      await withApp(command, async (app) => {
        const result = await pruneRuns(await app.runs(), app.storageDir, { olderThanMs, statuses: options.status, dryRun: options.dryRun });
        if (options.json) return printJson(result);
        for (const run of result.runs)
          process.stdout.write(`${run.id}  ${run.workflow}  ${run.status}  ${new Date(run.createdAt).toISOString()}\n`);
        process.stdout.write(
          `${result.dryRun ? 'Would delete' : 'Deleted'} ${result.runs.length} run${result.runs.length === 1 ? '' : 's'} older than ${options.olderThan}.\n`,
        );
      });
    });
}
