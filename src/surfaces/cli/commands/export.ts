/**
 * `weft export <run> [-o file.jsonl]`: the run's record, whole event log and artifact
 * references as JSON Lines, on stdout or into a file.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Command } from 'commander';
import { exportRun } from '../../../app/services/run-export.js';
import { withApp } from '../command-context.js';

export function registerExportCommand(program: Command): void {
  program
    .command('export')
    .description("write a run as JSON Lines: its record, every event, and its artifacts' paths")
    .argument('<run-id>')
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .action(async (id: string, options: { output?: string }, command: Command) => {
      await withApp(command, async (app) => {
        const lines = exportRun(await app.runs(), app.storageDir, id);
        // The run is looked up before the file is opened, so an unknown id leaves no empty file.
        const first = await lines.next();
        const out = options.output ? createWriteStream(options.output) : process.stdout;
        let count = 0;
        for (let next = first; !next.done; next = await lines.next()) {
          count += 1;
          if (!out.write(`${JSON.stringify(next.value)}\n`)) await once(out, 'drain');
        }
        if (options.output) {
          out.end();
          await once(out, 'finish');
          process.stderr.write(`Exported ${count} lines to ${options.output}\n`);
        }
      });
    });
}
