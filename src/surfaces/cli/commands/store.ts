/**
 * `weft store migrate --to <url>` copies this storage dir's SQLite store into PostgreSQL;
 * `weft store artifact <id>` prints a full tool output kept in the shared database. The
 * URL may hold a password: the process title is rewritten at once so `ps` shows it
 * masked, and every message shows it masked.
 */
import type { Command } from 'commander';
import { maskDatabaseUrl } from '../../../runs/store/postgres/database-url.js';
import { printJson, withApp } from '../command-context.js';

export function registerStoreCommands(program: Command): void {
  const store = program.command('store').description('the run store: move it to PostgreSQL, read what it keeps');
  store
    .command('migrate')
    .description('copy the SQLite store of the storage dir (runs, events, questions, MCP catalogue) into PostgreSQL, verifying counts')
    .requiredOption('--to <url>', 'postgres://user@host:5432/database (put the password in PGPASSWORD or ~/.pgpass rather than here)')
    .option('--json', 'print the counts as JSON')
    .action(async (options: { to: string; json?: boolean }, command: Command) => {
      process.title = `weft store migrate --to ${maskDatabaseUrl(options.to)}`;
      await withApp(command, async (app) => {
        const report = await app.migrateStore(options.to);
        if (options.json) return printJson(report);
        process.stdout.write(
          `Copied ${report.runs - report.skipped} run(s) to ${report.target} (${report.skipped} already there), verified: ${report.runs} runs, ${report.events} events, ${report.questions} questions, ${report.mcpServers} MCP servers.\n` +
            'Point every host at it with WEFT_DATABASE_URL or [store] url in settings.toml.\n',
        );
      });
    });
  store
    .command('artifact <id>')
    .description('print a full tool output that a PostgreSQL store keeps (the id from "Full output saved to weft-artifact:<id>")')
    .action(async (id: string, _options: unknown, command: Command) => {
      await withApp(command, async (app) => {
        process.stdout.write(await app.readArtifact(id));
      });
    });
}
