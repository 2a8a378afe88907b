/**
 * The `weft` command line: global options, the command tree, and the one place where
 * errors become messages and exit codes.
 */
import { Command, CommanderError } from 'commander';
import { WeftError } from '../../core/errors.js';
import { endQuietlyWhenOutputCloses } from './closed-output.js';
import { enableFullGc } from './full-gc-access.js';
import { redactSecrets } from '../../core/redact.js';
import { EXIT_FAILURE, EXIT_USAGE, exitCodeFor } from './exit-codes.js';
import { version } from '../../core/package-version.js';

/** Global options that take a value, so the word after them is not a command. */
const VALUE_OPTIONS = new Set(['--storage-dir', '--cwd']);

/** The first two command words of `argv` (global options and their values skipped). */
function commandWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let index = 2; index < argv.length && words.length < 2; index += 1) {
    const arg = argv[index] ?? '';
    if (arg === '--') break;
    if (VALUE_OPTIONS.has(arg)) index += 1;
    else if (!arg.startsWith('-')) words.push(arg);
  }
  return words;
}

/**
 * True for `weft [global options] mcp start …`. MCP clients time the server's start-up
 * (spec §8: first `tools/list` under 400 ms), so that command builds only the `mcp`
 * command tree instead of every command's options.
 */
function startsMcpServer(argv: readonly string[]): boolean {
  const [first, second] = commandWords(argv);
  return first === 'mcp' && second === 'start';
}

/**
 * Which command modules `argv` needs. Each one imports what its actions use, and all of
 * them together cost ~40 MiB of RSS at start-up: `weft --version` and `weft tools …` load
 * only their own (a big `tools call` result must fit in little memory), everything else
 * — including help, completion and suggestions for a mistyped word — loads them all.
 */
type Tree = 'none' | 'tools' | 'mcp-server' | 'all';
function treeFor(argv: readonly string[]): Tree {
  const [first] = commandWords(argv);
  if (startsMcpServer(argv)) return 'mcp-server';
  if (first === 'tools') return 'tools';
  if (first === undefined && (argv.includes('--version') || argv.includes('-V')) && !argv.includes('--help') && !argv.includes('-h'))
    return 'none';
  return 'all';
}

async function registerCommands(program: Command, tree: Tree): Promise<void> {
  if (tree === 'none') return;
  if (tree === 'tools') {
    (await import('./commands/tools.js')).registerToolCommands(program);
    return;
  }
  const mcpCommands = async (): Promise<void> => {
    const [{ registerMcpCommands }, { registerMcpServerCommands }] = await Promise.all([
      import('./commands/mcp.js'),
      import('./commands/mcp-server.js'),
    ]);
    registerMcpServerCommands(registerMcpCommands(program));
  };
  if (tree === 'mcp-server') return mcpCommands();
  const [
    tools,
    runCreate,
    runRead,
    runSteer,
    workspace,
    pair,
    workflow,
    worker,
    schedule,
    serve,
    store,
    exportCommand,
    doctor,
    prune,
    completion,
  ] = await Promise.all([
    import('./commands/tools.js'),
    import('./commands/run-create.js'),
    import('./commands/run-read.js'),
    import('./commands/run-steer.js'),
    import('./commands/workspace.js'),
    import('./commands/pair.js'),
    import('./commands/workflow.js'),
    import('./commands/worker.js'),
    import('./commands/schedule.js'),
    import('./commands/serve.js'),
    import('./commands/store.js'),
    import('./commands/export.js'),
    import('./commands/doctor.js'),
    import('./commands/prune.js'),
    import('./commands/completion.js'),
  ]);
  tools.registerToolCommands(program);
  await mcpCommands();
  runCreate.registerRunCreateCommands(program);
  runRead.registerRunReadCommands(program);
  runSteer.registerRunSteerCommands(program);
  workspace.registerWorkspaceCommands(program);
  pair.registerPairCommand(program);
  workflow.registerWorkflowCommands(program);
  worker.registerWorkerCommand(program);
  schedule.registerScheduleCommands(program);
  serve.registerServeCommand(program);
  store.registerStoreCommands(program);
  exportCommand.registerExportCommand(program);
  doctor.registerDoctorCommand(program);
  prune.registerPruneCommand(program);
  completion.registerCompletionCommand(program);
}

async function buildProgram(argv: readonly string[]): Promise<Command> {
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
  await registerCommands(program, treeFor(argv));
  for (const command of program.commands) applyToTree(command);
  return program;
}

function applyToTree(command: Command): void {
  command.exitOverride().showHelpAfterError('(run with --help for usage)');
  for (const child of command.commands) applyToTree(child);
}

async function main(argv: string[]): Promise<void> {
  // A huge MCP result is freed as soon as it is read (`core/full-gc.ts`): this process is
  // weft's own, so it may reach `gc`; a library user's never does unless started so.
  enableFullGc();
  // The stdio MCP server's transport handles its own closed stdout and shuts down in order;
  // `mcp start --help` only prints, like any other command.
  if (!startsMcpServer(argv) || argv.includes('--help') || argv.includes('-h')) endQuietlyWhenOutputCloses();
  const program = await buildProgram(argv);
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
