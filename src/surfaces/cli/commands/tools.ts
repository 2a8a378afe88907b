/**
 * `weft tools list` and `weft tools call`.
 */
import type { Command } from 'commander';
import { WeftError } from '../../../core/errors.js';
import { resultText } from '../../../tools/tool.js';
import { printJson, withApp } from '../command-context.js';
import { EXIT_FAILURE, EXIT_OK } from '../exit-codes.js';
import { processTerminal } from '../terminal.js';
import { untilInterrupted } from '../interrupt.js';

function parseArgsJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new WeftError(
      'USAGE',
      `--args is not valid JSON (${(error as Error).message}). Pass an object, e.g. --args '{"command":"echo hi"}'.`,
    );
  }
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

export function registerToolCommands(program: Command): void {
  const tools = program.command('tools').description('list and call tools (built-in and MCP)');

  tools
    .command('list')
    .description('list every tool an agent can call')
    .option('--server <name>', 'only the tools of this MCP server')
    .option('--json', 'print JSON: [{name, source, server, description, inputSchema}]')
    .action(async (options: { server?: string; json?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const { tools: list, stillConnecting, patienceMs } = await (await app.tools()).list({ server: options.server });
        for (const server of stillConnecting) {
          process.stderr.write(
            `weft: MCP server '${server}' has not answered within ${patienceMs / 1000}s and is left out; 'weft tools list --server ${server}' waits for it, 'weft mcp test ${server}' shows why it is slow\n`,
          );
        }
        if (options.json) return printJson(list);
        const width = Math.max(4, ...list.map((tool) => tool.name.length));
        for (const tool of list)
          process.stdout.write(`${tool.name.padEnd(width)}  ${tool.source.padEnd(7)}  ${firstLine(tool.description)}\n`);
      });
    });

  tools
    .command('call')
    .description('call one tool directly and print its result (an MCP server that asks for input prompts on this terminal)')
    .argument('<name>', "tool name as shown by 'weft tools list'")
    .option('--args <json>', 'arguments as a JSON object', '{}')
    .option('--json', 'print the whole result as JSON')
    .action(async (name: string, options: { args: string; json?: boolean }, command: Command) => {
      const args = parseArgsJson(options.args);
      // Servers may ask for input mid-call (elicitation): the person at this terminal answers.
      const terminal = processTerminal();
      await withApp(
        command,
        async (app) => {
          try {
            const tools = await app.tools();
            const result = await untilInterrupted((signal) => tools.call(name, args, signal));
            if (options.json) printJson(result);
            else {
              const text = resultText(result);
              (result.isError ? process.stderr : process.stdout).write(text.endsWith('\n') ? text : `${text}\n`);
            }
            process.exitCode = result.isError ? EXIT_FAILURE : EXIT_OK;
          } finally {
            terminal.close();
          }
        },
        { terminal },
      );
    });
}
