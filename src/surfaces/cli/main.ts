/**
 * The `weft` command line: global options, the command tree, and the one place where
 * errors become messages and exit codes.
 */
import { Command, CommanderError } from 'commander';
import { WeftError } from '../../core/errors.js';
import { endQuietlyWhenOutputCloses } from './closed-output.js';
import { redactSecrets } from '../../core/redact.js';
import { registerCompletionCommand } from './commands/completion.js';
import { registerDoctorCommand } from './commands/doctor.js';
import { registerExportCommand } from './commands/export.js';
import { registerMcpCommands } from './commands/mcp.js';
import { registerMcpServerCommands } from './commands/mcp-server.js';
import { registerPairCommand } from './commands/pair.js';
import { registerPruneCommand } from './commands/prune.js';
import { registerRunCreateCommands } from './commands/run-create.js';
import { registerRunReadCommands } from './commands/run-read.js';
import { registerRunSteerCommands } from './commands/run-steer.js';
import { registerServeCommand } from './commands/serve.js';
import { registerStoreCommands } from './commands/store.js';
import { registerWorkerCommand } from './commands/worker.js';
import { registerScheduleCommands } from './commands/schedule.js';
import { registerWorkflowCommands } from './commands/workflow.js';
import { registerToolCommands } from './commands/tools.js';
import { registerWorkspaceCommands } from './commands/workspace.js';
import { EXIT_FAILURE, EXIT_USAGE, exitCodeFor } from './exit-codes.js';
import { version } from '../../core/package-version.js';

/** Global options that take a value, so the word after them is not a command. */
const VALUE_OPTIONS = new Set(['--storage-dir', '--cwd']);

/**
 * True for `weft [global options] mcp start …`. MCP clients time the server's start-up
 * (spec §8: first `tools/list` under 400 ms), so that command builds only the `mcp`
 * command tree instead of every command's options.
 */
function startsMcpServer(argv: readonly string[]): boolean {
  const words: string[] = [];
  for (let index = 2; index < argv.length && words.length < 2; index += 1) {
    const arg = argv[index] ?? '';
    if (arg === '--') break;
    if (VALUE_OPTIONS.has(arg)) index += 1;
    else if (!arg.startsWith('-')) words.push(arg);
  }
  return words[0] === 'mcp' && words[1] === 'start';
}

function buildProgram(argv: readonly string[]): Command {
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
  if (startsMcpServer(argv)) {
    registerMcpServerCommands(registerMcpCommands(program));
    for (const command of program.commands) applyToTree(command);
    return program;
  }
  registerToolCommands(program);
  registerMcpServerCommands(registerMcpCommands(program));
  registerRunCreateCommands(program);
  registerRunReadCommands(program);
  registerRunSteerCommands(program);
  registerWorkspaceCommands(program);
  registerPairCommand(program);
  registerWorkflowCommands(program);
  registerWorkerCommand(program);
  registerScheduleCommands(program);
  registerServeCommand(program);
  registerStoreCommands(program);
  registerExportCommand(program);
  registerDoctorCommand(program);
  registerPruneCommand(program);
  registerCompletionCommand(program);
  for (const command of program.commands) applyToTree(command);
  return program;
}

function applyToTree(command: Command): void {
  command.exitOverride().showHelpAfterError('(run with --help for usage)');
  for (const child of command.commands) applyToTree(child);
}

async function main(argv: string[]): Promise<void> {
  // The stdio MCP server's transport handles its own closed stdout and shuts down in order;
  // `mcp start --help` only prints, like any other command.
  if (!startsMcpServer(argv) || argv.includes('--help') || argv.includes('-h')) endQuietlyWhenOutputCloses();
  const program = buildProgram(argv);
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
