/**
 * `weft mcp list | get | add | add-json | remove | test`: the MCP servers weft connects to.
 */
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { WeftError } from '../../../core/errors.js';
import { formatDuration } from '../../../core/duration.js';
import type { McpAddResult, McpScope } from '../../../app/services/mcp-config-service.js';
import { printJson, withApp } from '../command-context.js';
import { IMPORT_SOURCES, isImportSource } from '../../../mcp/config/import-sources.js';
import { EXIT_FAILURE } from '../exit-codes.js';
import { collect } from '../options.js';
import { untilInterrupted } from '../interrupt.js';

function parsePairs(values: string[], separator: '=' | ':', flag: string, example: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const value of values) {
    const index = value.indexOf(separator);
    if (index <= 0)
      throw new WeftError(
        'USAGE',
        `${flag} '${value}' is not ${separator === '=' ? 'KEY=VALUE' : '"Name: value"'}; e.g. ${flag} ${example}.`,
      );
    pairs[value.slice(0, index).trim()] = value.slice(index + 1).trim();
  }
  return pairs;
}

function parseScope(value: string | undefined): McpScope | undefined {
  if (value === undefined || value === 'local' || value === 'project' || value === 'user') return value;
  throw new WeftError(
    'USAGE',
    `--scope must be 'project' (writes .mcp.json), 'local' (this project, this user only) or 'user' (writes the user settings.toml), not '${value}'.`,
  );
}

const SCOPE_HELP = "'project' (.mcp.json), 'local' (this project, only you) or 'user' (user settings.toml)";

/**
 * Where `mcp add` points: a command after `--`, or a URL — by `--url` or, in Claude Code's
 * form (`add --transport http NAME URL`), as the one positional word.
 */
function addTarget(
  name: string,
  words: string[],
  options: { url?: string; transport?: string },
): { command?: string[]; url?: string; transport?: 'http' | 'sse' } {
  const transport = options.transport;
  if (transport !== undefined && transport !== 'stdio' && transport !== 'http' && transport !== 'sse') {
    throw new WeftError('USAGE', `--transport must be 'stdio', 'http' or 'sse', not '${transport}'.`);
  }
  const positionalUrl = options.url === undefined && words.length === 1 && /^https?:\/\//i.test(words[0]!) ? words[0] : undefined;
  if (transport === 'stdio') {
    if (options.url !== undefined || positionalUrl !== undefined)
      throw new WeftError('USAGE', `--transport stdio takes a command, not a URL: weft mcp add ${name} -- npx -y some-server`);
    return { command: words };
  }
  const url = options.url ?? positionalUrl;
  if (url === undefined) {
    if (transport !== undefined)
      throw new WeftError(
        'USAGE',
        `--transport ${transport} needs the server's URL: weft mcp add --transport ${transport} ${name} https://example.com/mcp`,
      );
    return { command: words };
  }
  if (options.url !== undefined && words.length > 0)
    throw new WeftError(
      'USAGE',
      `Give either a command after '--' or a URL, not both (got --url ${options.url} and '${words.join(' ')}').`,
    );
  return { url, transport: transport ?? 'http' };
}

function printWarnings(warnings: readonly { message: string }[]): void {
  for (const warning of warnings) process.stderr.write(`weft: warning: ${warning.message}\n`);
}

/** What `mcp add` and `mcp add-json` print: `--json` gives the fields of docs/cli-json.md, else one line (warnings on stderr). */
function printAdded(name: string, scope: McpScope, result: McpAddResult, json: boolean | undefined): void {
  if (json)
    return printJson({
      name,
      scope,
      file: result.file,
      replaced: result.replaced,
      warnings: result.warnings.map((warning) => warning.message),
    });
  printWarnings(result.warnings);
  process.stdout.write(`${result.replaced ? 'Replaced' : 'Added'} MCP server '${name}' in ${result.file}\n`);
}

/** Registers `weft mcp …` and returns the `mcp` command, for the server subcommands (`mcp-server.ts`). */
export function registerMcpCommands(program: Command): Command {
  const mcp = program.command('mcp').description('manage the MCP servers whose tools agents use');

  mcp
    .command('list')
    .description('list configured servers with their status and tool count (connects to each)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const service = await app.mcp();
        if (options.json) return printJson(await service.list());
        // One line per server as it comes up, so a slow server does not leave the screen blank.
        const rows = await service.list((row) => {
          const error = row.error ? ` — ${row.error.split('\n', 1)[0]}` : '';
          process.stdout.write(`${row.name}  ${row.type}  ${row.status}  ${row.tools} tools  (${row.source})${error}\n`);
        });
        if (rows.length === 0)
          process.stdout.write("No MCP servers configured. Add one with 'weft mcp add <name> -- <command…>' or in .mcp.json.\n");
      });
    });

  mcp
    .command('get')
    .description('show one server: its resolved config and status')
    .argument('<name>', 'server name')
    .option('--json', 'print JSON')
    .action(async (name: string, options: { json?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        const config = await (await app.mcp()).config(name);
        const status = (await (await app.mcp()).start([name])).find((entry) => entry.name === name) ?? null;
        // Values of env and headers may hold secrets; show names only.
        const shown = { ...config, env: Object.keys(config.env), headers: Object.keys(config.headers) };
        if (status?.state === 'failed') process.exitCode = EXIT_FAILURE;
        if (options.json) return printJson({ config: shown, status });
        process.stdout.write(`${name} (${config.type}) from ${config.source.file}\n`);
        if (config.command) process.stdout.write(`  command: ${config.command.join(' ')}\n`);
        if (config.script) process.stdout.write(`  script: ${config.script}\n`);
        if (config.url) process.stdout.write(`  url: ${config.url}\n`);
        process.stdout.write(`  enabled: ${config.enabled}  required: ${config.required}\n`);
        process.stdout.write(
          `  status: ${status?.state ?? 'disabled'}  tools: ${status?.tools ?? 0}${status?.error ? `\n  error: ${status.error}` : ''}\n`,
        );
      });
    });

  mcp
    .command('add')
    .description('add a server: `add <name> -- <command…>` (stdio), `add --transport http <name> <url>` or `add <name> --url <url>`')
    .argument('<name>', 'server name ([A-Za-z0-9_-]+)')
    .argument('[commandOrUrl...]', 'executable and arguments after --, or the URL of an http/sse server')
    .option('-s, --scope <scope>', SCOPE_HELP, 'project')
    .option('-e, --env <KEY=VALUE>', 'environment variable for the server (repeatable)', collect, [])
    .option('--url <url>', 'endpoint of an HTTP or SSE server')
    .option('-t, --transport <transport>', "'stdio', 'http' or 'sse' (default: http for a URL, else stdio)")
    .option('-H, --header <"Name: value">', 'HTTP header (repeatable)', collect, [])
    .option('--replace', 'replace an entry of the same name')
    .option('--json', 'print {name, scope, file, replaced, warnings} (see docs/cli-json.md)')
    .action(
      async (
        name: string,
        words: string[],
        options: { scope: string; env: string[]; url?: string; transport?: string; header: string[]; replace?: boolean; json?: boolean },
        command: Command,
      ) => {
        const target = addTarget(name, words, options);
        const scope = parseScope(options.scope) ?? 'project';
        await withApp(command, async (app) => {
          const result = await (
            await app.mcpConfig()
          ).add({
            name,
            scope,
            ...target,
            env: parsePairs(options.env, '=', '-e', 'API_URL=https://example.com'),
            headers: parsePairs(options.header, ':', '-H', '"X-Team: infra"'),
            replace: options.replace,
          });
          printAdded(name, scope, result, options.json);
        });
      },
    );

  mcp
    .command('add-json')
    .description('add a server from a JSON entry, e.g. \'{"command":"npx","args":["-y","pkg"]}\'')
    .argument('<name>', 'server name')
    .argument('<json>', 'the entry, in the .mcp.json shape')
    .option('-s, --scope <scope>', SCOPE_HELP, 'project')
    .option('--replace', 'replace an entry of the same name')
    .option('--json', 'print {name, scope, file, replaced, warnings} (see docs/cli-json.md)')
    .action(async (name: string, json: string, options: { scope: string; replace?: boolean; json?: boolean }, command: Command) => {
      const scope = parseScope(options.scope) ?? 'project';
      await withApp(command, async (app) => {
        printAdded(name, scope, await (await app.mcpConfig()).addJson(name, json, scope, options.replace), options.json);
      });
    });

  mcp
    .command('import')
    .description(
      'copy the servers another client configured for you: codex (~/.codex/config.toml), claude (~/.claude.json), cursor (~/.cursor/mcp.json)',
    )
    .argument('<source>', "'codex', 'claude' or 'cursor'")
    .option('-s, --scope <scope>', SCOPE_HELP, 'user')
    .option('--replace', 'replace entries of the same name')
    .option('--json', 'print JSON')
    .action(async (source: string, options: { scope: string; replace?: boolean; json?: boolean }, command: Command) => {
      if (!isImportSource(source)) throw new WeftError('USAGE', `Cannot import from '${source}': use one of ${IMPORT_SOURCES.join(', ')}.`);
      const scope = parseScope(options.scope) ?? 'user';
      await withApp(command, async (app) => {
        const result = await (await app.mcpConfig()).import(source, scope, options.replace);
        if (options.json) return printJson(result);
        if (result.servers.length === 0) process.stdout.write(`No MCP servers in ${result.from}.\n`);
        for (const row of result.servers) {
          process.stdout.write(
            row.outcome === 'skipped' ? `skipped ${row.name}: ${row.reason}\n` : `${row.outcome} ${row.name} → ${row.file}\n`,
          );
        }
      });
    });

  mcp
    .command('remove')
    .description('remove a server (from .mcp.json, else the user settings, unless --scope says)')
    .argument('<name>', 'server name')
    .option('-s, --scope <scope>', `${SCOPE_HELP}; default: the first that has it`)
    .option('--json', 'print {name, scope, file} (see docs/cli-json.md)')
    .action(async (name: string, options: { scope?: string; json?: boolean }, command: Command) => {
      const scope = parseScope(options.scope);
      await withApp(command, async (app) => {
        const result = await (await app.mcpConfig()).remove(name, scope);
        if (options.json) return printJson({ name, scope: result.scope, file: result.file });
        process.stdout.write(`Removed MCP server '${name}' from ${result.file}\n`);
      });
    });

  mcp
    .command('test')
    .description('connect to one server and list its tools, resources and prompts with timings')
    .argument('<name>', 'server name')
    .option('--json', 'print JSON')
    .action(async (name: string, options: { json?: boolean }, command: Command) => {
      await withApp(command, async (app) => {
        try {
          const report = await (await app.mcp()).test(name);
          if (options.json) return printJson({ ok: true, ...report });
          const info = report.serverInfo ? ` ${report.serverInfo.name} ${report.serverInfo.version}` : '';
          process.stdout.write(
            `✓ ${name}: connected in ${formatDuration(report.connectMs)} (${report.type}${info}, protocol ${report.protocolVersion ?? '?'})\n`,
          );
          process.stdout.write(`  tools (${report.tools.length}): ${report.tools.map((tool) => tool.name).join(', ')}\n`);
          process.stdout.write(`  resources (${report.resources.count}, ${formatDuration(report.resources.ms)})\n`);
          process.stdout.write(
            `  prompts (${report.prompts.count}, ${formatDuration(report.prompts.ms)}): ${report.prompts.items.join(', ')}\n`,
          );
        } catch (error) {
          if (!WeftError.is(error, 'MCP_SERVER_FAILED')) throw error;
          if (options.json) printJson({ ok: false, name, error: error.message });
          else process.stderr.write(`✗ ${error.message}\n`);
          process.exitCode = EXIT_FAILURE;
        }
      });
    });

  mcp
    .command('login')
    .description('sign in to a remote (http/sse) server with OAuth; prints the URL to open and waits for the redirect')
    .argument('<name>', 'server name')
    .option(
      '--scope <scopes>',
      'scopes to ask for on top of what the server names (space-separated), e.g. after a tool call said it needs more',
    )
    .action(async (name: string, options: { scope?: string }, command: Command) => {
      await withApp(command, async (app) => {
        const mcp = await app.mcp();
        const result = await untilInterrupted((signal) =>
          mcp.login(name, (url) => openInBrowser(url), { signal, ...(options.scope ? { scope: options.scope } : {}) }),
        );
        const expiry = result.expiresAt ? `, token valid until ${new Date(result.expiresAt).toISOString()}` : '';
        process.stdout.write(`Logged in to '${name}'${expiry}. Tokens are stored in ${result.file}\n`);
      });
    });

  mcp
    .command('logout')
    .description('forget the OAuth tokens of a server')
    .argument('<name>', 'server name')
    .action(async (name: string, _options: unknown, command: Command) => {
      await withApp(command, async (app) => {
        const removed = await (await app.mcp()).logout(name);
        process.stdout.write(removed ? `Logged out of '${name}'.\n` : `Nothing stored for '${name}'.\n`);
      });
    });

  return mcp;
}

/** Prints the URL (always) and tries the desktop's opener; a headless machine just shows the URL. */
function openInBrowser(url: URL): void {
  process.stderr.write(`Open this URL to authorize weft:\n  ${url.href}\n`);
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'start' : 'xdg-open';
  try {
    const child = spawn(opener, [url.href], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // No opener here: the printed URL is enough.
  }
}
