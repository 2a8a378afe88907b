/**
 * `weft mcp start | config | init`: weft as an MCP server, under the `mcp` command. The
 * server surface is imported only when `mcp start` runs, and the run service (the store)
 * only when the first tool call needs it, so a client's `tools/list` comes back fast.
 */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { WeftError } from '../../../core/errors.js';
import { serverErrorReporter } from '../../shared/server-error-report.js';
import type { WeftApp } from '../../../app/weft-app.js';
import { globalOptions, openApp, printJson } from '../command-context.js';
import { collect } from '../options.js';
import { untilInterrupted } from '../interrupt.js';

interface StartOptions {
  http?: boolean;
  host: string;
  port: string;
  allowedHost: string[];
  auth: boolean;
}

export const DEFAULT_MCP_PORT = 7337;

export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new WeftError('USAGE', `--port must be a whole number from 0 to 65535 (0 picks a free port), not '${value}'.`);
  return port;
}

/** The storage dir; `prepare` checks (and creates) it, for the commands that keep state there. */
async function storageDirOf(command: Command, prepare = false): Promise<string> {
  const { prepareStorageDir, resolveStorageDir } = await import('../../../app/host/storage-dir.js');
  const dir = resolveStorageDir(globalOptions(command).storageDir, process.env);
  return prepare ? prepareStorageDir(dir) : dir;
}

async function start(options: StartOptions, command: Command): Promise<void> {
  if (!options.http && (options.auth === false || options.allowedHost.length > 0))
    throw new WeftError('USAGE', '--no-auth and --allowed-host apply to --http only.');
  const port = parsePort(options.port);
  const [mcpServer, { version }, storageDir] = await Promise.all([
    import('../../mcp-server/index.js'),
    import('../../../core/package-version.js'),
    storageDirOf(command, true),
  ]);
  if (options.http && !options.auth && !mcpServer.isLoopbackHost(options.host)) {
    throw new WeftError(
      'USAGE',
      `--no-auth is only allowed on a loopback host (127.0.0.1, localhost, ::1), not '${options.host}': anyone who can reach it could run commands.`,
    );
  }
  const token = options.http && options.auth ? await mcpServer.loadServerToken(storageDir, process.env) : undefined;

  const global = globalOptions(command);
  // Over HTTP, `[mcp] fast_path` picks the session transport (stdio has no fast-path piece to turn off).
  const fastPath = options.http
    ? (
        await (
          await import('../../../core/settings/settings.js')
        ).loadSettings({ storageDir, workspaceRoot: resolve(global.cwd ?? process.cwd()) })
      ).mcpFastPath
    : undefined;
  let host: Promise<WeftApp> | undefined;
  // The app of --cwd (its settings pick the store), built on the first call that needs runs.
  const openHost = () => (host ??= openApp(command));
  if (!options.http && process.stdin.isTTY) {
    process.stderr.write(
      "weft MCP server on stdio: it speaks JSON-RPC with the MCP client that launched it (see 'weft mcp init --help'). Ctrl-C stops it.\n",
    );
  }
  try {
    await untilInterrupted(
      (signal) =>
        mcpServer.serveMcp({
          runs: async () => (await openHost()).runs(),
          cwd: resolve(global.cwd ?? process.cwd()),
          version,
          ...(options.http
            ? {
                http: {
                  host: options.host,
                  port,
                  token: token?.token,
                  allowedHosts: options.allowedHost,
                  ...(fastPath === undefined ? {} : { fastPath }),
                },
              }
            : {}),
          onListening: (url) => {
            const auth = !token
              ? 'no authentication'
              : token.source === 'env'
                ? `bearer token from ${mcpServer.TOKEN_ENV}`
                : `bearer token in ${token.file}${token.source === 'created' ? ' (new)' : ''}`;
            process.stderr.write(`weft MCP server listening on ${url} (${auth})\n`);
          },
          onError: serverErrorReporter('weft: mcp server'),
          signal,
        }),
      ['SIGINT', 'SIGTERM'],
    );
  } finally {
    if (host) await (await host).close();
  }
}

const CLIENT_NAMES = { claude: 'Claude Code', cursor: 'Cursor', windsurf: 'Windsurf', codex: 'Codex' } as const;

/** Adds `start`, `config` and `init` to the `mcp` command that `registerMcpCommands` returns. */
export function registerMcpServerCommands(mcp: Command): void {
  mcp
    .command('start')
    .description('serve weft as an MCP server (runs, events, questions) over stdio, or Streamable HTTP with --http')
    .option('--http', 'serve Streamable HTTP instead of stdio')
    .option('--host <host>', 'HTTP: address to listen on', '127.0.0.1')
    .option('--port <port>', 'HTTP: port to listen on (0 picks a free one)', String(DEFAULT_MCP_PORT))
    .option('--allowed-host <name>', 'HTTP: another hostname clients may use in Host/Origin headers (repeatable)', collect, [])
    .option('--no-auth', 'HTTP: serve without a bearer token (allowed on a loopback host only)')
    .addHelpText(
      'after',
      `\nOver HTTP, clients send "Authorization: Bearer <token>": $WEFT_MCP_TOKEN, else the token in <storage dir>/mcp-server-token (created on first use, mode 0600).\nRuns created through MCP are executed by background runners and keep going when the client or this server stops.`,
    )
    .action(async (options: StartOptions, command: Command) => start(options, command));

  mcp
    .command('config')
    .description("print the entry an MCP client needs to launch 'weft mcp start' (JSON; for codex, the TOML table of its config.toml)")
    .option('--client <client>', 'claude, cursor, windsurf or codex', 'claude')
    .action(async (options: { client: string }, command: Command) => {
      const config = await import('../../../app/services/mcp-client-setup.js');
      if (!config.isClientTarget(options.client))
        throw new WeftError('USAGE', `--client must be one of ${config.CLIENT_TARGETS.join(', ')}, not '${options.client}'.`);
      const { weftBinPath } = await import('../../../app/host/weft-bin.js');
      const entry = config.buildClientEntry(options.client, {
        node: process.execPath,
        bin: weftBinPath(),
        storageDir: await storageDirOf(command),
      });
      if (options.client === 'codex') {
        process.stdout.write(`${(await import('../../../app/services/codex-config.js')).codexConfigBlock(entry)}\n`);
        return;
      }
      printJson({ mcpServers: { [config.SERVER_NAME]: entry } });
    });

  mcp
    .command('init')
    .description("add weft to an MCP client's config file (idempotent; keeps a .bak of the previous file and every other setting)")
    .argument('<client>', 'claude, cursor, windsurf or codex ($CODEX_HOME/config.toml, else ~/.codex/config.toml)')
    .option(
      '--scope <scope>',
      "'user' (the client's user config) or 'project' (this directory: .mcp.json for Claude Code, .cursor/mcp.json for Cursor; a portable 'npx weft' entry to commit)",
      'user',
    )
    .option('--json', 'print {client, scope, file, status, backup, portable} (see docs/cli-json.md)')
    .action(async (client: string, options: { scope: string; json?: boolean }, command: Command) => {
      const config = await import('../../../app/services/mcp-client-setup.js');
      if (!config.isClientTarget(client))
        throw new WeftError('USAGE', `<client> must be one of ${config.CLIENT_TARGETS.join(', ')}, not '${client}'.`);
      if (options.scope !== 'user' && options.scope !== 'project')
        throw new WeftError('USAGE', `--scope must be 'user' or 'project', not '${options.scope}'.`);
      const { weftBinPath } = await import('../../../app/host/weft-bin.js');
      const home = homedir();
      const global = globalOptions(command);
      const file = config.clientConfigFile(client, options.scope, {
        home,
        cwd: resolve(global.cwd ?? process.cwd()),
        ...(process.env.CODEX_HOME ? { codexHome: process.env.CODEX_HOME } : {}),
      });
      // A project file is shared: it names a storage dir only when asked for one.
      const portable = options.scope === 'project';
      const storageDir = portable
        ? global.storageDir === undefined
          ? undefined
          : resolve(global.storageDir)
        : await storageDirOf(command);
      const entry = config.buildClientEntry(client, {
        node: process.execPath,
        bin: weftBinPath(),
        portable,
        ...(storageDir === undefined ? {} : { storageDir }),
      });
      const result =
        client === 'codex'
          ? await (await import('../../../app/services/codex-config.js')).initCodexConfig(file, entry)
          : await config.initClientConfig(file, entry, home);
      if (options.json)
        return printJson({ client, scope: options.scope, file, status: result.status, backup: result.backup ?? null, portable });
      const backup = result.backup ? ` (previous file kept as ${result.backup})` : '';
      switch (result.status) {
        case 'unchanged':
          process.stdout.write(`weft is already configured in ${file}; nothing changed.\n`);
          break;
        case 'created':
          process.stdout.write(`Created ${file} with the weft MCP server.\n`);
          break;
        case 'added':
          process.stdout.write(`Added the weft MCP server to ${file}${backup}.\n`);
          break;
        case 'updated':
          process.stdout.write(`Updated the weft MCP server in ${file}${backup}.\n`);
          break;
      }
      if (result.status !== 'unchanged') process.stdout.write(`Restart ${CLIENT_NAMES[client]} (or reload its MCP servers) to use it.\n`);
      if (portable)
        process.stdout.write(
          `The entry runs 'npx --no weft mcp start': commit ${file} with weft in the project's devDependencies. ${client === 'claude' ? 'Claude Code asks each user to approve project servers from .mcp.json the first time it starts here (see /mcp).' : 'Cursor may ask to enable the server in its MCP settings.'}\n`,
        );
    });
}
