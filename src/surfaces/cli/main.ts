/**
 * The `weft` command line: global options, the command tree, and the one place where
 * errors become messages and exit codes.
 */
import { Command, CommanderError } from 'commander';
import { WeftError } from '../../core/errors.js';
import { redactSecrets } from '../../core/redact.js';
import { registerMcpCommands } from './commands/mcp.js';
import { registerRunCreateCommands } from './commands/run-create.js';
import { registerRunReadCommands } from './commands/run-read.js';
import { registerRunSteerCommands } from './commands/run-steer.js';
import { registerWorkerCommand } from './commands/worker.js';
import { registerWorkflowCommands } from './commands/workflow.js';
import { registerToolCommands } from './commands/tools.js';
import { EXIT_FAILURE, EXIT_USAGE, exitCodeFor } from './exit-codes.js';
import { version } from './version.js';

function buildProgram(): Command {
  const program = new Command('weft')
    .description('agent workflow runtime that speaks MCP both ways')
    .version(version, '-V, --version')
    .option('--storage-dir <dir>', 'storage dir (default: $WEFT_HOME or ~/.weft)')
    .option('--cwd <dir>', 'workspace root (default: the current directory)')
    .option('-v, --verbose', 'log debug details to stderr')
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text) });
  registerToolCommands(program);
  registerMcpCommands(program);
  registerRunCreateCommands(program);
  registerRunReadCommands(program);
  registerRunSteerCommands(program);
  registerWorkflowCommands(program);
  registerWorkerCommand(program);
  for (const command of program.commands) applyToTree(command);
  return program;
}

function applyToTree(command: Command): void {
  command.exitOverride().showHelpAfterError('(run with --help for usage)');
  for (const child of command.commands) applyToTree(child);
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    process.exitCode = reportError(error);
  }
}

function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
    return EXIT_USAGE;
  }
  if (error instanceof WeftError) {
    process.stderr.write(`weft: ${redactSecrets(error.message)}\n`);
    return exitCodeFor(error.code);
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`weft: internal error: ${redactSecrets(message)}\n`);
  return EXIT_FAILURE;
}

await main(process.argv);
