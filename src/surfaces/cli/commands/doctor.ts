/**
 * `weft doctor`: one line per check with the fix for each problem; exit 1 when one failed.
 */
import type { Command } from 'commander';
import { runDoctor } from '../../../app/services/doctor.js';
import { printJson, withApp } from '../command-context.js';
import { EXIT_FAILURE } from '../exit-codes.js';

const MARK = { ok: '✓', warn: '!', fail: '✗' } as const;

export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('check Node, the storage dir, MCP servers, the model configuration and client entries')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const checks = await runDoctor(app, process.env);
        if (checks.some((check) => check.level === 'fail')) process.exitCode = EXIT_FAILURE;
        if (options.json) return printJson(checks);
        for (const check of checks)
          process.stdout.write(`${MARK[check.level]} ${check.name}: ${check.detail}${check.fix ? `\n    fix: ${check.fix}` : ''}\n`);
      });
    });
}
